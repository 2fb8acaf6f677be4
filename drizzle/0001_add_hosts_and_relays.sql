CREATE TABLE "hosts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"display_name" text NOT NULL,
	"wallet" text NOT NULL,
	"contact_email" text,
	"host_token_hash" text NOT NULL,
	"enrollment_code" text NOT NULL,
	"bond_deposit_code" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"enrolled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	CONSTRAINT "hosts_host_token_hash_unique" UNIQUE("host_token_hash"),
	CONSTRAINT "hosts_enrollment_code_unique" UNIQUE("enrollment_code"),
	CONSTRAINT "hosts_bond_deposit_code_unique" UNIQUE("bond_deposit_code"),
	CONSTRAINT "hosts_status_known" CHECK ("hosts"."status" IN ('pending', 'active', 'suspended', 'retired'))
);
--> statement-breakpoint
CREATE TABLE "relay_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"host_id" uuid NOT NULL,
	"upstream" text NOT NULL,
	"label" text,
	"ciphertext" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "relay_listings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"host_id" uuid NOT NULL,
	"relay_key_id" uuid NOT NULL,
	"model_id" text NOT NULL,
	"upstream_model_id" text NOT NULL,
	"input_per_1m" bigint NOT NULL,
	"output_per_1m" bigint NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"daily_cap_microunits" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "relay_listings_prices_non_negative" CHECK ("relay_listings"."input_per_1m" >= 0 AND "relay_listings"."output_per_1m" >= 0),
	CONSTRAINT "relay_listings_cap_positive" CHECK ("relay_listings"."daily_cap_microunits" IS NULL OR "relay_listings"."daily_cap_microunits" > 0)
);
--> statement-breakpoint
ALTER TABLE "relay_keys" ADD CONSTRAINT "relay_keys_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relay_listings" ADD CONSTRAINT "relay_listings_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relay_listings" ADD CONSTRAINT "relay_listings_relay_key_id_relay_keys_id_fk" FOREIGN KEY ("relay_key_id") REFERENCES "public"."relay_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relay_listings" ADD CONSTRAINT "relay_listings_model_id_models_id_fk" FOREIGN KEY ("model_id") REFERENCES "public"."models"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "relay_keys_host_idx" ON "relay_keys" USING btree ("host_id");--> statement-breakpoint
CREATE UNIQUE INDEX "relay_listings_host_model_idx" ON "relay_listings" USING btree ("host_id","model_id");--> statement-breakpoint
CREATE INDEX "relay_listings_model_idx" ON "relay_listings" USING btree ("model_id");