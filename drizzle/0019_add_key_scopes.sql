ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{inference}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "stored_responses" ADD COLUMN "api_key_id" uuid;