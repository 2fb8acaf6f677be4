CREATE TABLE "x402_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"signature" text NOT NULL,
	"quote_id" uuid NOT NULL,
	"scheme" text NOT NULL,
	"asset" text NOT NULL,
	"payer_wallet" text NOT NULL,
	"status" text NOT NULL,
	"received_amount" bigint,
	"credited_microunits" bigint,
	"signed_transaction" text,
	"sponsored_fee_lamports" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "x402_payments_status_valid" CHECK ("x402_payments"."status" IN ('pending', 'settled', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "x402_quotes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body_hash" text NOT NULL,
	"model" text NOT NULL,
	"network" text NOT NULL,
	"pay_to" text NOT NULL,
	"cap_microunits" bigint NOT NULL,
	"cap_lamports" bigint,
	"micro_usd_per_sol" bigint,
	"standard_microunits" bigint NOT NULL,
	"standard_lamports" bigint,
	"fee_payer" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"consumed_by" text
);
--> statement-breakpoint
CREATE TABLE "x402_sponsored_fees" (
	"day" date PRIMARY KEY NOT NULL,
	"spent_lamports" bigint NOT NULL,
	"settlements" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_quote_id_x402_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."x402_quotes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_payments_network_signature_idx" ON "x402_payments" USING btree ("network","signature");--> statement-breakpoint
CREATE INDEX "x402_payments_quote_idx" ON "x402_payments" USING btree ("quote_id");--> statement-breakpoint
CREATE INDEX "x402_quotes_expires_idx" ON "x402_quotes" USING btree ("expires_at");