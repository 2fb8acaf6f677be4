export * from "./accounts";
export * from "./catalog";
export * from "./holds";
export * from "./ledger";
export * from "./tokens";
export * from "./usage";
