"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { rememberedToken, rememberToken, signIn, tokenFromHash } from "./token-store";

/**
 * Runs on every dashboard page. A `#token=` link (the register response's dashboard_url)
 * signs the browser in and is dropped from the address bar first, so history never keeps it.
 */
export function SessionKeeper({ signedIn, token }: { signedIn: boolean; token?: string }) {
  const router = useRouter();
  const [message, setMessage] = useState<string | undefined>(undefined);

  useEffect(() => {
    const signInFromHash = (): boolean => {
      const fromHash = tokenFromHash(window.location.hash);
      if (fromHash === undefined) return false;
      // A null state (not Next's own) makes Next's patched replaceState adopt the new URL; with
      // Next's state passed back, its router keeps the old URL and restores the hash on refresh.
      window.history.replaceState(null, "", window.location.pathname + window.location.search);
      void signIn(fromHash).then((result) => {
        if (result.ok) {
          setMessage(undefined);
          rememberToken(fromHash);
          router.refresh();
        } else setMessage(`That dashboard link did not sign you in: ${result.message}`);
      });
      return true;
    };
    // A link opened in a tab already on the dashboard changes only the hash: no page load, so
    // the mount below never sees it; the hashchange event does.
    const onHashChange = () => void signInFromHash();
    window.addEventListener("hashchange", onHashChange);
    // Signed in by a cookie from before: remember the token here too.
    if (!signInFromHash() && signedIn && token !== undefined && rememberedToken() === undefined)
      rememberToken(token);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, [signedIn, token, router]);

  return message === undefined ? null : (
    <p className="dash-alert dash-alert--warn" role="alert">
      {message}
    </p>
  );
}
