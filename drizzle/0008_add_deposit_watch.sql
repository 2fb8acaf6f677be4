ALTER TABLE "chain_deposits" ADD COLUMN "suspense_microunits" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_deposits" ADD COLUMN "refund_signature" text;--> statement-breakpoint
CREATE INDEX "chain_deposits_token_idx" ON "chain_deposits" USING btree ("token_id");