CREATE TABLE "auto_top_up_charges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_id" uuid NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"credit_microunits" bigint NOT NULL,
	"status" text NOT NULL,
	"payment_intent_id" text,
	"receipt_url" text,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_top_up_charges_status" CHECK ("auto_top_up_charges"."status" IN ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "auto_top_ups" (
	"token_id" uuid PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"armed" boolean DEFAULT true NOT NULL,
	"threshold_microunits" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"monthly_cap_cents" bigint NOT NULL,
	"stripe_customer_id" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"setup_session_id" text,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_top_ups_amounts" CHECK ("auto_top_ups"."amount_cents" > 0 AND "auto_top_ups"."monthly_cap_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "low_balance_alerts" (
	"token_id" uuid PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"threshold_microunits" bigint NOT NULL,
	"webhook_url" text,
	"webhook_secret" text NOT NULL,
	"armed" boolean DEFAULT true NOT NULL,
	"last_sent_at" timestamp with time zone,
	"last_result" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auto_top_up_charges" ADD CONSTRAINT "auto_top_up_charges_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_top_ups" ADD CONSTRAINT "auto_top_ups_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "low_balance_alerts" ADD CONSTRAINT "low_balance_alerts_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "auto_top_up_charges_one_pending" ON "auto_top_up_charges" USING btree ("token_id") WHERE "auto_top_up_charges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "auto_top_up_charges_token_idx" ON "auto_top_up_charges" USING btree ("token_id","created_at");