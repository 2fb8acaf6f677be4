CREATE TABLE "host_slashes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"host_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"reason" text NOT NULL,
	"evidence" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"earnings_microunits" bigint NOT NULL,
	"bond_microunits" bigint NOT NULL,
	"refunded_microunits" bigint NOT NULL,
	"remainder_microunits" bigint NOT NULL,
	"callers_refunded" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "host_trust_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"host_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"request_id" text,
	"detail" text NOT NULL,
	"evidence" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "host_slashes" ADD CONSTRAINT "host_slashes_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "host_trust_events" ADD CONSTRAINT "host_trust_events_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "host_slashes_host_idx" ON "host_slashes" USING btree ("host_id");--> statement-breakpoint
CREATE INDEX "host_trust_events_host_idx" ON "host_trust_events" USING btree ("host_id","created_at");