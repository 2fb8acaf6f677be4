CREATE TABLE "card_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_id" uuid NOT NULL,
	"account_id" bigint NOT NULL,
	"credit_microunits" bigint NOT NULL,
	"amount_total" bigint NOT NULL,
	"fee_amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"payment_intent_id" text,
	"reversed_microunits" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"credited_at" timestamp with time zone,
	CONSTRAINT "card_sessions_status_known" CHECK ("card_sessions"."status" IN ('open', 'credited', 'expired', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "chain_deposits" (
	"signature" text PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"slot" bigint NOT NULL,
	"block_time" timestamp with time zone,
	"memo" text,
	"mint" text,
	"amount" bigint NOT NULL,
	"sender" text,
	"status" text NOT NULL,
	"reason" text,
	"token_id" uuid,
	"host_id" uuid,
	"resolution_note" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_deposits_status_known" CHECK ("chain_deposits"."status" IN ('credited', 'bonded', 'unmatched', 'assigned', 'refunded'))
);
--> statement-breakpoint
CREATE TABLE "deposit_cursors" (
	"address" text PRIMARY KEY NOT NULL,
	"last_signature" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "maintenance_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receivables" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_microunits" bigint NOT NULL,
	"source" text NOT NULL,
	"reference" text NOT NULL,
	"session_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "receivables_reference_unique" UNIQUE("reference")
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"session_id" text,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_sessions" ADD CONSTRAINT "card_sessions_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_sessions_account_idx" ON "card_sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "card_sessions_payment_intent_idx" ON "card_sessions" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE INDEX "chain_deposits_status_idx" ON "chain_deposits" USING btree ("status");--> statement-breakpoint
CREATE INDEX "receivables_account_idx" ON "receivables" USING btree ("account_id");