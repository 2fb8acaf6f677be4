export * from "./accounts";
export * from "./catalog";
export * from "./holds";
export * from "./hosts";
export * from "./ledger";
export * from "./relays";
export * from "./tokens";
export * from "./usage";
