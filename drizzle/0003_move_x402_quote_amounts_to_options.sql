CREATE TABLE "x402_quote_options" (
	"quote_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"rail" text NOT NULL,
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"pay_to" text NOT NULL,
	"amount" bigint NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "x402_quote_options_quote_id_position_pk" PRIMARY KEY("quote_id","position")
);
--> statement-breakpoint
ALTER TABLE "x402_quote_options" ADD CONSTRAINT "x402_quote_options_quote_id_x402_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."x402_quotes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Existing quotes keep every option they offered: native USDC, native SOL, then the co-signed entries.
INSERT INTO "x402_quote_options" ("quote_id", "position", "rail", "network", "asset", "pay_to", "amount", "details")
SELECT "id", 0, 'solana-native', "network", 'USDC', "pay_to", "cap_microunits", '{}'::jsonb FROM "x402_quotes";--> statement-breakpoint
INSERT INTO "x402_quote_options" ("quote_id", "position", "rail", "network", "asset", "pay_to", "amount", "details")
SELECT "id", 1, 'solana-native', "network", 'SOL', "pay_to", "cap_lamports",
       jsonb_build_object('micro_usd_per_sol', "micro_usd_per_sol"::text)
FROM "x402_quotes" WHERE "cap_lamports" IS NOT NULL AND "micro_usd_per_sol" IS NOT NULL;--> statement-breakpoint
INSERT INTO "x402_quote_options" ("quote_id", "position", "rail", "network", "asset", "pay_to", "amount", "details")
SELECT "id", 2, 'solana-exact', "network", 'USDC', "pay_to", "standard_microunits",
       jsonb_build_object('fee_payer', "fee_payer")
FROM "x402_quotes" WHERE "fee_payer" IS NOT NULL;--> statement-breakpoint
INSERT INTO "x402_quote_options" ("quote_id", "position", "rail", "network", "asset", "pay_to", "amount", "details")
SELECT "id", 3, 'solana-exact', "network", 'SOL', "pay_to", "standard_lamports",
       jsonb_build_object('fee_payer', "fee_payer", 'micro_usd_per_sol', "micro_usd_per_sol"::text)
FROM "x402_quotes"
WHERE "fee_payer" IS NOT NULL AND "standard_lamports" IS NOT NULL AND "micro_usd_per_sol" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "network";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "pay_to";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "cap_lamports";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "micro_usd_per_sol";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "standard_microunits";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "standard_lamports";--> statement-breakpoint
ALTER TABLE "x402_quotes" DROP COLUMN "fee_payer";