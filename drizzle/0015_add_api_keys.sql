CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_id" uuid NOT NULL,
	"account_id" bigint NOT NULL,
	"key_hash" text NOT NULL,
	"hint" text NOT NULL,
	"label" text NOT NULL,
	"limit_microunits" bigint,
	"limit_period" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash"),
	CONSTRAINT "api_keys_limit_shape" CHECK (("api_keys"."limit_microunits" IS NULL AND "api_keys"."limit_period" IS NULL) OR ("api_keys"."limit_microunits" > 0 AND "api_keys"."limit_period" IN ('day', 'month')))
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_token_idx" ON "api_keys" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "usage_records_api_key_idx" ON "usage_records" USING btree ("api_key_id","created_at");