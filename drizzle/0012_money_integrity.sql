CREATE TABLE "settlement_journal" (
	"request_id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"settlement" jsonb NOT NULL,
	"final" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlement_quarantine" (
	"request_id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"settlement" jsonb NOT NULL,
	"reason" text NOT NULL,
	"charged_microunits" bigint NOT NULL,
	"loss_microunits" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "input_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "output_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "cache_read_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "cache_write_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "receivables" ADD COLUMN "outstanding_microunits" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "receivables" ADD COLUMN "status" text DEFAULT 'open' NOT NULL;--> statement-breakpoint
CREATE INDEX "settlement_journal_instance_idx" ON "settlement_journal" USING btree ("instance_id");--> statement-breakpoint
ALTER TABLE "receivables" ADD CONSTRAINT "receivables_outstanding_in_range" CHECK ("receivables"."outstanding_microunits" >= 0);--> statement-breakpoint
UPDATE "receivables" SET "outstanding_microunits" = "amount_microunits" WHERE "status" = 'open';
