/**
 * A Wallet Standard wallet for page tests, as an init script: it registers itself the way
 * browser-extension wallets do (the `wallet-standard:register-wallet` event, and answering
 * `wallet-standard:app-ready`), holds one pre-authorised account, and signs transactions by
 * calling `window.podTestWalletSign`, which the test exposes from Node with a local keypair.
 * It implements `solana:signTransaction` only, so the page's adapter sends the signed bytes
 * itself (sendRawTransaction), as it does for most wallets.
 */
export function testWalletScript(address: string, publicKey: number[]): string {
  return `(() => {
  const chains = ["solana:mainnet", "solana:devnet", "solana:testnet", "solana:localnet"];
  const account = Object.freeze({
    address: ${JSON.stringify(address)},
    publicKey: new Uint8Array(${JSON.stringify(publicKey)}),
    chains,
    features: ["solana:signTransaction"],
    label: "Test account",
  });
  const icon = "data:image/svg+xml;base64," + btoa('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" rx="6" fill="#4f46e5"/></svg>');
  const wallet = {
    version: "1.0.0",
    name: "Pod Test Wallet",
    icon,
    chains,
    get accounts() { return [account]; },
    features: {
      "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
      "standard:disconnect": { version: "1.0.0", disconnect: async () => {} },
      "standard:events": { version: "1.0.0", on: () => () => {} },
      "solana:signTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: async (...inputs) =>
          Promise.all(inputs.map(async (input) => ({
            signedTransaction: Uint8Array.from(await window.podTestWalletSign(Array.from(input.transaction))),
          }))),
      },
    },
  };
  const callback = ({ register }) => register(wallet);
  window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
  window.addEventListener("wallet-standard:app-ready", (event) => callback(event.detail));
})();`;
}
