CREATE TABLE "x402_gas_spend" (
	"network" text NOT NULL,
	"day" date NOT NULL,
	"spent_wei" bigint NOT NULL,
	"settlements" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "x402_gas_spend_network_day_pk" PRIMARY KEY("network","day")
);
--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "transaction_hash" text;