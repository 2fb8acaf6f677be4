ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_transaction_id_ledger_transactions_id_fk";
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_account_id_accounts_id_fk";
--> statement-breakpoint
-- The two foreign keys, checked per statement: a settlement batch writes hundreds of entries in
-- one statement, and a foreign key looks up and locks the referenced row once per entry.
-- Each check is planned when it runs (EXECUTE), for the rows and tables as they are then: a plan
-- kept from a first, small statement would go on scanning a ledger that has grown since.
CREATE FUNCTION ledger_entries_name_existing_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing boolean;
BEGIN
  EXECUTE 'SELECT EXISTS (SELECT 1 FROM written w WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = w.account_id))' INTO missing;
  IF missing THEN
    RAISE EXCEPTION 'a ledger entry names an account that does not exist' USING ERRCODE = 'foreign_key_violation';
  END IF;
  EXECUTE 'SELECT EXISTS (SELECT 1 FROM written w WHERE NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.id = w.transaction_id))' INTO missing;
  IF missing THEN
    RAISE EXCEPTION 'a ledger entry names a ledger transaction that does not exist' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_inserted_name_existing_rows AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_name_existing_rows();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_updated_name_existing_rows AFTER UPDATE ON ledger_entries
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_name_existing_rows();
--> statement-breakpoint
-- The referenced side: a row an entry names is neither deleted nor given another id.
-- TG_ARGV[0] is the ledger_entries column that names the rows of the table deleted from.
CREATE FUNCTION ledger_rows_keep_their_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  named boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM removed r JOIN ledger_entries e ON e.%I = r.id)', TG_ARGV[0]) INTO named;
  IF named THEN
    RAISE EXCEPTION 'a row of % that ledger entries name cannot be deleted', TG_TABLE_NAME USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER accounts_deleted_keep_their_entries AFTER DELETE ON accounts
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rows_keep_their_entries('account_id');
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_deleted_keep_their_entries AFTER DELETE ON ledger_transactions
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rows_keep_their_entries('transaction_id');
--> statement-breakpoint
CREATE FUNCTION ledger_row_ids_are_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%.id cannot change', TG_TABLE_NAME USING ERRCODE = 'foreign_key_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER accounts_id_is_fixed BEFORE UPDATE OF id ON accounts
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION ledger_row_ids_are_fixed();
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_id_is_fixed BEFORE UPDATE OF id ON ledger_transactions
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION ledger_row_ids_are_fixed();
