CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"token_id" uuid NOT NULL,
	"input_items" jsonb NOT NULL,
	"response" jsonb NOT NULL,
	"size_bytes" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stored_responses_token_idx" ON "stored_responses" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "stored_responses_expiry_idx" ON "stored_responses" USING btree ("expires_at");