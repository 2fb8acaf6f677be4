import Link from "next/link";
import type { ComponentProps, ComponentType, ReactNode } from "react";
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
import * as ReactDOM from "react-dom";
import { CodeBlock } from "./code-block";

/**
 * Renders contentlayer2's compiled MDX. The compiled module expects React and the JSX runtime
 * as globals (mdx-bundler's contract); we evaluate it here instead of importing
 * `next-contentlayer2/hooks`, whose module graph pulls in the Pages Router.
 */

type MdxComponents = Record<string, ComponentType<Record<string, unknown>> | ((props: never) => ReactNode)>;
type MdxModule = { default: ComponentType<{ components?: MdxComponents }> };

const compiled = new Map<string, ComponentType<{ components?: MdxComponents }>>();

function getMdxComponent(code: string): ComponentType<{ components?: MdxComponents }> {
  const cachedComponent = compiled.get(code);
  if (cachedComponent !== undefined) return cachedComponent;
  const scope = { React, ReactDOM, _jsx_runtime: jsxRuntime };
  const evaluate = new Function(...Object.keys(scope), code) as (...args: unknown[]) => MdxModule;
  const component = evaluate(...Object.values(scope)).default;
  compiled.set(code, component);
  return component;
}

const internalHref = /^\/(?!\/)/;

function MdxLink({ href = "", children, ...rest }: ComponentProps<"a">) {
  // Machine endpoints are files, not pages: a client-side transition to them would fail.
  const isFile = /\.(md|txt|json)(#.*)?$/.test(href);
  if (internalHref.test(href) && !isFile) {
    return (
      <Link href={href} {...rest}>
        {children}
      </Link>
    );
  }
  const external = /^https?:\/\//.test(href);
  return (
    <a href={href} {...(external ? { rel: "noreferrer" } : {})} {...rest}>
      {children}
    </a>
  );
}

function MdxTable(props: ComponentProps<"table">) {
  // Wide reference tables scroll on their own on a phone instead of widening the page; the
  // keyboard must reach a box that scrolls (axe-core's scrollable-region-focusable).
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling table must be reachable by keyboard to be scrolled.
    <section className="table-wrap" tabIndex={0} aria-label="Table">
      <table {...props} />
    </section>
  );
}

const components = { a: MdxLink, pre: CodeBlock, table: MdxTable } as unknown as MdxComponents;

export function MdxContent({ code }: { code: string }) {
  const Content = getMdxComponent(code);
  return <Content components={components} />;
}
