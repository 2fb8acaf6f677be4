// The exports @solana/wallet-adapter-react's WalletProvider imports from
// @solana-mobile/wallet-adapter-mobile. On an Android browser without an injected wallet the
// provider adds a Mobile Wallet Adapter entry; this one reports itself Unsupported, so the
// dashboard (which lists Installed wallets) never offers it and connect() refuses.
import { BaseWalletAdapter, WalletNotReadyError, WalletReadyState } from "@solana/wallet-adapter-base";

export const SolanaMobileWalletAdapterWalletName = "Mobile Wallet Adapter";

const icon =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=";

export class SolanaMobileWalletAdapter extends BaseWalletAdapter {
  name = SolanaMobileWalletAdapterWalletName;
  url = "https://github.com/solana-mobile/mobile-wallet-adapter";
  icon = icon;
  readyState = WalletReadyState.Unsupported;
  publicKey = null;
  connecting = false;
  supportedTransactionVersions = null;

  async connect() {
    throw new WalletNotReadyError("Mobile Wallet Adapter is not part of this build");
  }

  async disconnect() {}

  async sendTransaction() {
    throw new WalletNotReadyError("Mobile Wallet Adapter is not part of this build");
  }
}

export const createDefaultAddressSelector = () => ({ select: async (addresses) => addresses[0] });
export const createDefaultAuthorizationResultCache = () => ({
  clear: async () => {},
  get: async () => undefined,
  set: async () => {},
});
export const createDefaultWalletNotFoundHandler = () => async () => {};
