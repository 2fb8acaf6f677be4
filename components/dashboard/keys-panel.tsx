"use client";

import type {
  ApiKeyView,
  IssuedKeyResponse,
  KeyLimitView,
  KeyScope,
  ListKeysResponse,
} from "@pod-gateway/contracts/account-keys";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";
import { ScrollRegion } from "./scroll-region";
import { SecretRow } from "./secret-row";
import { TableHead } from "./table-head";
import { UsdField } from "./usd-field";
import { usdToMicrounits } from "./usd-input";

type Period = "day" | "month";

interface Shown {
  label: string;
  secret: string;
  baseUrl: string;
  rotated: boolean;
}

async function readError(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  return body.error?.message ?? `HTTP ${response.status}`;
}

const periodWord = (period: Period) => (period === "day" ? "day" : "month");

/** What a new key may do beyond inference, as one choice (manage includes read). */
type Access = "inference" | "read" | "manage";
const accessScopes: Record<Access, KeyScope[]> = {
  inference: ["inference"],
  read: ["inference", "read"],
  manage: ["inference", "read", "manage"],
};
const toAccess = (value: string): Access => (value === "read" || value === "manage" ? value : "inference");

/**
 * The account's further API keys: create one with a label, an optional daily or monthly limit
 * and what it may do beyond inference; see what each spent in its period, change its limit,
 * rotate or revoke it. A new or rotated key is shown once.
 */
export function KeysPanel({ token }: { token: string }) {
  const [keys, setKeys] = useState<ApiKeyView[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [shown, setShown] = useState<Shown | undefined>(undefined);
  const [label, setLabel] = useState("");
  const [limitText, setLimitText] = useState("");
  const [period, setPeriod] = useState<Period>("day");
  const [access, setAccess] = useState<Access>("inference");
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const response = await fetch(`/proxy/${token}/keys`, { cache: "no-store" });
      if (!response.ok) throw new Error(await readError(response));
      setKeys(((await response.json()) as ListKeysResponse).keys);
    } catch (caught) {
      setError(`Could not load your keys: ${caught instanceof Error ? caught.message : "unknown error"}`);
    }
  }, [token]);

  useEffect(() => {
    void load();
  }, [load]);

  async function call(path: string, init: RequestInit): Promise<Response | undefined> {
    setError(undefined);
    setBusy(true);
    try {
      const response = await fetch(`/proxy/${token}/keys${path}`, {
        ...init,
        headers: { "content-type": "application/json" },
      });
      if (!response.ok) {
        setError(await readError(response));
        return undefined;
      }
      return response;
    } catch {
      setError("The gateway could not be reached.");
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  async function create(event: FormEvent) {
    event.preventDefault();
    let limit: { amount_microunits: number; period: Period } | null = null;
    if (limitText.trim() !== "") {
      const microunits = usdToMicrounits(limitText);
      if (microunits === undefined || microunits <= 0n) {
        setError("A limit is an amount in dollars, such as 5 or 0.50 (up to six decimals).");
        return;
      }
      limit = { amount_microunits: Number(microunits), period };
    }
    const response = await call("", {
      method: "POST",
      body: JSON.stringify({ label, limit, scopes: accessScopes[access] }),
    });
    if (!response) return;
    const issued = (await response.json()) as IssuedKeyResponse;
    setShown({ label: issued.key.label, secret: issued.api_key, baseUrl: issued.base_url, rotated: false });
    setLabel("");
    setLimitText("");
    await load();
  }

  async function rotate(key: ApiKeyView) {
    const response = await call(`/${key.id}/rotate`, { method: "POST" });
    if (!response) return;
    const issued = (await response.json()) as IssuedKeyResponse;
    setShown({ label: issued.key.label, secret: issued.api_key, baseUrl: issued.base_url, rotated: true });
    await load();
  }

  async function revoke(key: ApiKeyView) {
    if (!window.confirm(`Revoke “${key.label}”? Requests made with it are refused from now on.`)) return;
    if (await call(`/${key.id}/revoke`, { method: "POST" })) await load();
  }

  async function changeLimit(key: ApiKeyView, text: string, nextPeriod: Period) {
    let limit: { amount_microunits: number; period: Period } | null = null;
    if (text.trim() !== "") {
      const microunits = usdToMicrounits(text);
      if (microunits === undefined || microunits <= 0n) {
        setError("A limit is an amount in dollars, such as 5 or 0.50 (up to six decimals).");
        return;
      }
      limit = { amount_microunits: Number(microunits), period: nextPeriod };
    }
    if (await call(`/${key.id}`, { method: "PATCH", body: JSON.stringify({ limit }) })) await load();
  }

  return (
    <div className="dash-keys">
      <ErrorAlert message={error} />
      {shown === undefined ? null : (
        <section className="dash-alert dash-alert--ok dash-key-once" aria-label="Your new key">
          <p>
            <strong>
              {shown.rotated ? `“${shown.label}” has a new key.` : `“${shown.label}” is ready.`}
            </strong>{" "}
            Copy it now: it is shown only once.
            {shown.rotated ? " The key it replaces is refused from now on." : ""}
          </p>
          <SecretRow key={shown.secret} secret={shown.secret} label="New API key" copyLabel="Copy key" />
          <p className="dash-muted dash-wrap">
            Base URL for OpenAI clients: <code>{shown.baseUrl}</code>
          </p>
          <button
            type="button"
            className="dash-button dash-button--quiet"
            onClick={() => setShown(undefined)}
          >
            I saved it
          </button>
        </section>
      )}
      <form className="dash-card dash-form dash-key-form" onSubmit={(event) => void create(event)}>
        <h2 className="dash-key-form__title">Create a key</h2>
        <label className="dash-field">
          <span className="dash-label">Label</span>
          <input
            className="dash-input"
            value={label}
            maxLength={64}
            required
            placeholder="CI bot, laptop, staging…"
            onChange={(event) => setLabel(event.target.value)}
          />
        </label>
        <UsdField
          label="Spend limit in USD (optional)"
          value={limitText}
          placeholder="No limit"
          onChange={setLimitText}
        />
        <label className="dash-field dash-field--narrow">
          <span className="dash-label">Per</span>
          <select
            className="dash-input"
            value={period}
            onChange={(event) => setPeriod(event.target.value === "month" ? "month" : "day")}
          >
            <option value="day">day (UTC)</option>
            <option value="month">month (UTC)</option>
          </select>
        </label>
        <label className="dash-field dash-field--narrow">
          <span className="dash-label">May also</span>
          <select
            className="dash-input"
            value={access}
            onChange={(event) => setAccess(toAccess(event.target.value))}
          >
            <option value="inference">nothing more (inference only)</option>
            <option value="read">read all activity</option>
            <option value="manage">read and manage the account</option>
          </select>
        </label>
        <button
          type="submit"
          className="dash-button dash-button--primary"
          disabled={busy || label.trim() === ""}
        >
          Create key
        </button>
      </form>
      <ScrollRegion label="API keys">
        <table className="dash-table dash-keys-table" aria-busy={keys === undefined}>
          <TableHead columns={["Key", "Limit", { numeric: "Spent this period" }, "Actions"]} />
          <tbody>
            {keys === undefined ? (
              <tr>
                <td colSpan={4} className="dash-muted">
                  Loading…
                </td>
              </tr>
            ) : keys.length === 0 ? (
              <tr>
                <td colSpan={4} className="dash-muted">
                  No keys yet: your token works on its own. Create a key per app or person to limit and revoke
                  each.
                </td>
              </tr>
            ) : (
              keys.map((key) => (
                <KeyRow
                  key={key.id}
                  apiKey={key}
                  busy={busy}
                  onRotate={() => void rotate(key)}
                  onRevoke={() => void revoke(key)}
                  onLimit={(text, nextPeriod) => void changeLimit(key, text, nextPeriod)}
                />
              ))
            )}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}

function KeyRow({
  apiKey,
  busy,
  onRotate,
  onRevoke,
  onLimit,
}: {
  apiKey: ApiKeyView;
  busy: boolean;
  onRotate(): void;
  onRevoke(): void;
  onLimit(text: string, period: Period): void;
}) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(
    apiKey.limit ? formatUsd(apiKey.limit.amount_microunits).replace(/^\$/, "").replace(/,/g, "") : "",
  );
  const [period, setPeriod] = useState<Period>(apiKey.limit?.period ?? "day");
  const revoked = apiKey.status === "revoked";
  return (
    <tr data-key-id={apiKey.id} data-status={apiKey.status}>
      <td>
        <strong>{apiKey.label}</strong>
        <span className="dash-muted dash-nowrap">
          {" "}
          <code>…{apiKey.hint}</code>
          {apiKey.scopes.includes("manage")
            ? " · manages"
            : apiKey.scopes.includes("read")
              ? " · reads all"
              : ""}
          {revoked ? " · revoked" : ""}
        </span>
      </td>
      <td data-label="Limit">
        {editing ? (
          <form
            className="dash-inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              onLimit(text, period);
              setEditing(false);
            }}
          >
            <input
              className="dash-input"
              aria-label={`Limit for ${apiKey.label} in USD (empty for none)`}
              value={text}
              inputMode="decimal"
              placeholder="No limit"
              onChange={(event) => setText(event.target.value)}
            />
            <select
              className="dash-input"
              aria-label="Period"
              value={period}
              onChange={(event) => setPeriod(event.target.value === "month" ? "month" : "day")}
            >
              <option value="day">per day</option>
              <option value="month">per month</option>
            </select>
            <button type="submit" className="dash-button" disabled={busy}>
              Save
            </button>
          </form>
        ) : apiKey.limit ? (
          <span className="dash-nowrap">{`${formatUsd(apiKey.limit.amount_microunits)} per ${periodWord(apiKey.limit.period)}`}</span>
        ) : (
          <span className="dash-muted">No limit</span>
        )}
      </td>
      <td className="dash-table__num" data-label="Spent this period">
        {formatUsd(apiKey.spent_microunits)}
        {apiKey.limit && !revoked ? <LimitLeft limit={apiKey.limit} spent={apiKey.spent_microunits} /> : null}
        {apiKey.resets_at ? (
          <span className="dash-muted dash-block">
            resets {apiKey.resets_at.slice(0, 16).replace("T", " ")} UTC
          </span>
        ) : null}
      </td>
      <td>
        {revoked ? (
          <span className="dash-muted">Revoked {apiKey.revoked_at?.slice(0, 10)}</span>
        ) : (
          <div className="dash-actions">
            <button
              type="button"
              className="dash-button"
              disabled={busy}
              onClick={() => setEditing(!editing)}
            >
              {editing ? "Cancel" : "Change limit"}
            </button>
            <button type="button" className="dash-button" disabled={busy} onClick={onRotate}>
              Rotate
            </button>
            <button
              type="button"
              className="dash-button dash-button--danger"
              disabled={busy}
              onClick={onRevoke}
            >
              Revoke
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

/**
 * What a limited key may still spend this period, or that it has reached its limit (its
 * requests are refused with 402 key_limit_reached until the period resets). A request is also
 * refused when what it may cost at most is more than what is left, so "left" is the most a
 * request may need, not a promise that the next one passes.
 */
function LimitLeft({ limit, spent }: { limit: KeyLimitView; spent: number }) {
  const left = limit.amount_microunits - spent;
  return left <= 0 ? (
    <span className="dash-badge dash-badge--warn dash-block" data-testid="key-limit-reached">
      Limit reached
    </span>
  ) : (
    <span className="dash-muted dash-block" data-testid="key-limit-left">
      {formatUsd(left)} left
    </span>
  );
}
