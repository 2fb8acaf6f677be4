ALTER TABLE "auto_top_up_charges" ADD COLUMN "reversed_microunits" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "auto_top_ups" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "auto_top_ups" ADD COLUMN "suspended_reason" text;