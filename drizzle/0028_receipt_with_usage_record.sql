-- The signed receipt, kept with its usage record when it was signed before the settlement's
-- batch was written (lib/ledger/receipt-slot.ts): one row a request fewer than usage_receipts.
ALTER TABLE "usage_records" ADD COLUMN "receipt" text;
