import type { RailDefinition } from "../core/payment-rail";
import { evmRailDefinition } from "./evm/evm-rail";
import { solanaRailDefinition } from "./solana/solana-rail";

/**
 * Every network family the gateway can take x402 payments on, one line each. The order is the
 * order a quote offers their entries in: Solana first, so position-based readers of the
 * reference service still see its native entries first (and its clients, which may leave the
 * network out of a self-broadcast proof, are read as Solana's). A new family is a folder
 * beside these two and one line here.
 */
export const railRegistry: readonly RailDefinition[] = [solanaRailDefinition, evmRailDefinition];
