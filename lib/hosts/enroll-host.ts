import type { Database } from "../db/client";
import { hosts } from "../db/schema";
import { hashHostToken, newBondDepositCode, newEnrollmentCode, newHostToken } from "./host-codes";

export interface EnrollHostInput {
  displayName: string;
  wallet: string;
  contactEmail: string | undefined;
}

export interface EnrolledHost {
  providerId: string;
  hostToken: string;
  enrollmentCode: string;
  bondDepositCode: string;
  enrolledAt: Date;
}

/**
 * Creates a host in `pending`: it becomes routable once its bond is seen (or an admin
 * activates it). The host token is returned once and only its hash is kept.
 */
export async function enrollHost(database: Database, input: EnrollHostInput): Promise<EnrolledHost> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const hostToken = newHostToken();
    const enrollmentCode = newEnrollmentCode();
    const bondDepositCode = newBondDepositCode();
    const inserted = await database
      .insert(hosts)
      .values({
        displayName: input.displayName,
        wallet: input.wallet,
        contactEmail: input.contactEmail ?? null,
        hostTokenHash: hashHostToken(hostToken),
        enrollmentCode,
        bondDepositCode,
      })
      .onConflictDoNothing()
      .returning({ id: hosts.id, enrolledAt: hosts.enrolledAt });
    const row = inserted[0];
    // 40 bits per code make a collision rare, but uniqueness is the contract: draw again.
    if (row)
      return { providerId: row.id, hostToken, enrollmentCode, bondDepositCode, enrolledAt: row.enrolledAt };
  }
  throw new Error("could not mint unique host codes");
}
