CREATE TABLE "catalog_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"model_id" text NOT NULL,
	"provider" text,
	"action" text NOT NULL,
	"before" jsonb,
	"after" jsonb
);
--> statement-breakpoint
CREATE TABLE "catalog_state" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"seeded_providers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"refreshed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD COLUMN "source" text DEFAULT 'dataset' NOT NULL;--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD COLUMN "operator_pinned" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "kind" text DEFAULT 'chat' NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "aliases" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "input_modalities" jsonb DEFAULT '["text"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "output_modalities" jsonb DEFAULT '["text"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "supports_tools" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "supports_reasoning" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "supports_structured_output" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "uncensored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "disabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "source" text DEFAULT 'dataset' NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "operator_edited" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "catalog_changes_model_idx" ON "catalog_changes" USING btree ("model_id","id");--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD CONSTRAINT "centralized_prices_non_negative" CHECK ("centralized_prices"."input_per_1m" >= 0 AND "centralized_prices"."output_per_1m" >= 0 AND "centralized_prices"."cache_read_per_1m" >= 0 AND "centralized_prices"."cache_write_per_1m" >= 0);