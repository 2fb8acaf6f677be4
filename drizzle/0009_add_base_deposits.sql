CREATE TABLE "base_deposits" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"authorization_key" text NOT NULL,
	"token_id" uuid NOT NULL,
	"account_id" bigint NOT NULL,
	"payer" text NOT NULL,
	"amount_microunits" bigint NOT NULL,
	"nonce" text NOT NULL,
	"salt" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"transaction_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"credited_at" timestamp with time zone,
	CONSTRAINT "base_deposits_status_known" CHECK ("base_deposits"."status" IN ('pending', 'credited', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "base_deposits" ADD CONSTRAINT "base_deposits_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "base_deposits_network_authorization_idx" ON "base_deposits" USING btree ("network","authorization_key");--> statement-breakpoint
CREATE INDEX "base_deposits_token_idx" ON "base_deposits" USING btree ("token_id");