CREATE TABLE "usage_receipts" (
	"request_id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"route" text NOT NULL,
	"provider_id" text NOT NULL,
	"jws" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_receipts_account_idx" ON "usage_receipts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "usage_receipts_provider_idx" ON "usage_receipts" USING btree ("provider_id","created_at");