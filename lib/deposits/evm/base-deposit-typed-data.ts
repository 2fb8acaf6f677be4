import type { Address } from "viem";
import { transferWithAuthorizationTypes } from "../../chains/evm/eip3009";
import type { BaseDepositServices } from "./base-deposit-config";
import { depositNonce, randomDepositSalt } from "./base-deposit-nonce";

/**
 * The EIP-712 typed data of one deposit, ready for `eth_signTypedData_v4` (viem's and
 * wagmi's `signTypedData` take it as is once the uint256 strings are BigInts): a
 * TransferWithAuthorization of `value` from `from` to the deposit address, valid from now
 * for the gateway's authorization TTL, with a fresh salt and the nonce committing to the
 * token's deposit_code. Numbers are decimal strings so JSON carries them exactly.
 */
export async function depositTypedData(
  services: BaseDepositServices,
  depositCode: string,
  input: { from: Address; value: bigint; now?: Date },
) {
  const usdc = await services.chain.tokenDomain();
  const salt = randomDepositSalt();
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return {
    salt,
    typed_data: {
      domain: {
        name: usdc.name,
        version: usdc.version,
        chainId: services.chain.chainId,
        verifyingContract: usdc.address,
      },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization" as const,
      message: {
        from: input.from,
        to: services.depositAddress,
        value: input.value.toString(),
        validAfter: "0",
        validBefore: String(now + services.authorizationTtlSeconds),
        nonce: depositNonce(depositCode, salt),
      },
    },
  };
}
