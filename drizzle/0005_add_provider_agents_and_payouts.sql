CREATE TABLE "host_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"host_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"destination" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"status" text NOT NULL,
	"signature" text,
	"signed_transaction" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "host_payouts_amount_positive" CHECK ("host_payouts"."amount" > 0),
	CONSTRAINT "host_payouts_status_known" CHECK ("host_payouts"."status" IN ('awaiting_approval', 'requested', 'broadcast', 'confirmed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "hosts" DROP CONSTRAINT "hosts_status_known";--> statement-breakpoint
ALTER TABLE "hosts" ADD COLUMN "agent_pubkey" text;--> statement-breakpoint
ALTER TABLE "hosts" ADD COLUMN "retired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "hosts" ADD COLUMN "bond_return_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "hosts" ADD COLUMN "bond_returned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "host_payouts" ADD CONSTRAINT "host_payouts_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "host_payouts_idempotency_idx" ON "host_payouts" USING btree ("host_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "host_payouts_status_idx" ON "host_payouts" USING btree ("status");--> statement-breakpoint
ALTER TABLE "hosts" ADD CONSTRAINT "hosts_agent_pubkey_unique" UNIQUE("agent_pubkey");--> statement-breakpoint
ALTER TABLE "hosts" ADD CONSTRAINT "hosts_status_known" CHECK ("hosts"."status" IN ('pending', 'active', 'suspended', 'retiring', 'retired'));