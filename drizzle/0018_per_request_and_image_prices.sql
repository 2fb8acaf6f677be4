ALTER TABLE "centralized_prices" ADD COLUMN "request_price" bigint;--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD COLUMN "image_rates" jsonb;--> statement-breakpoint
ALTER TABLE "centralized_prices" ADD CONSTRAINT "centralized_prices_request_price_non_negative" CHECK ("centralized_prices"."request_price" >= 0);