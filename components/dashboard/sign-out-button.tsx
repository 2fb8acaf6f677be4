"use client";

import { useRouter } from "next/navigation";
import { signOut } from "./token-store";

/** Signs this browser out and forgets the token remembered on this device. */
export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="dash-button dash-button--quiet"
      onClick={() => void signOut().then(() => router.refresh())}
    >
      Sign out
    </button>
  );
}
