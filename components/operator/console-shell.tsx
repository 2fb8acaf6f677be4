import type { ReactNode } from "react";
import { OperatorNav, type OperatorTab } from "./operator-nav";
import { OperatorSignIn } from "./operator-sign-in";

/**
 * A console page: its heading, then the operator's tabs and the page, or only the sign-in when
 * no operator is signed in (a person's or a host's session is not one: the page shows nothing).
 */
export function ConsoleShell({
  title,
  lead,
  current,
  operator,
  children,
}: {
  title: string;
  lead: string;
  current: OperatorTab;
  operator: string | undefined;
  children?: ReactNode;
}) {
  return (
    <>
      <header className="dash-header">
        <h1>{title}</h1>
        <p className="dash-lead">{lead}</p>
      </header>
      {operator === undefined ? (
        <OperatorSignIn />
      ) : (
        <>
          <OperatorNav current={current} operator={operator} />
          <div className="dash-console">{children}</div>
        </>
      )}
    </>
  );
}
