DROP INDEX "usage_receipts_account_idx";--> statement-breakpoint
DROP INDEX "usage_receipts_provider_idx";--> statement-breakpoint
DROP INDEX "usage_records_api_key_idx";--> statement-breakpoint
CREATE INDEX "usage_records_api_key_idx" ON "usage_records" USING btree ("api_key_id","created_at") WHERE "usage_records"."api_key_id" IS NOT NULL;
