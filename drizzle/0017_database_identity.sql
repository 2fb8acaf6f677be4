CREATE TABLE "database_identity" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "database_identity_singleton" CHECK ("database_identity"."singleton")
);
--> statement-breakpoint
INSERT INTO "database_identity" ("id") VALUES (gen_random_uuid()::text);
