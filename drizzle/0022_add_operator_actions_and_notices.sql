CREATE TABLE "operator_actions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"operator" text NOT NULL,
	"action" text NOT NULL,
	"subject" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operator_notices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"delivery" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "operator_actions_created_idx" ON "operator_actions" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "operator_notices_open_idx" ON "operator_notices" USING btree ("kind","subject") WHERE "operator_notices"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX "operator_notices_created_idx" ON "operator_notices" USING btree ("created_at");