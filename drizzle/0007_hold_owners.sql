CREATE TABLE "gateway_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "owner" text;--> statement-breakpoint
CREATE INDEX "holds_owner_idx" ON "holds" USING btree ("owner");