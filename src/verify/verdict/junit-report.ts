import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { TestStatus } from "../../contracts/verdict.ts";

/**
 * Parses a JUnit XML report (pytest's `--junitxml`, node:test's `junit` reporter) into flat test cases.
 *
 * The report is untrusted input written by the sandboxed test process, so the parser is strict: one
 * well-formed document with a single `<testsuites>` or `<testsuite>` root, no DTD (no entity tricks),
 * and it throws ReportError otherwise. Two roots mean something besides the runner wrote to the report
 * channel; that is flagged as `injected` so the verdict can call it forgery rather than a crash.
 */

export type CaseStatus = Exclude<TestStatus, "missing">;

export interface JunitCase {
  name: string;
  classname: string;
  /** pytest xunit1 only: the file the test function is defined in. */
  file?: string;
  /** Enclosing `<testsuite>` names, outermost first (node:test describe blocks; pytest's session suite). */
  suites: string[];
  status: CaseStatus;
  /** failure/error/skip message and text, capped. */
  message: string;
  timeSec: number;
}

export class ReportError extends Error {
  override readonly name = "ReportError";
  constructor(
    message: string,
    /** True when the report shows signs of a second writer (more than one document). */
    readonly injected = false,
  ) {
    super(message);
  }
}

const MESSAGE_CAP = 4000;
const ARRAY_TAGS = new Set(["testsuites", "testsuite", "testcase", "failure", "error", "skipped"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (tag) => ARRAY_TAGS.has(tag),
});

type Node = Record<string, unknown>;

export function parseJunit(xml: string): JunitCase[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new ReportError("report declares a DTD");
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (e) {
    throw new ReportError(`report is not well-formed XML (${(e as Error).message})`);
  }
  const text = doc["#text"];
  if (typeof text === "string" && text.trim())
    throw new ReportError("report has text outside its root element");
  const elements = Object.keys(doc).filter((k) => k !== "#text");
  const roots = elements.reduce((n, k) => n + (Array.isArray(doc[k]) ? (doc[k] as unknown[]).length : 1), 0);
  if (roots === 0) throw new ReportError("report has no root element");
  if (roots > 1) throw new ReportError(`report holds ${roots} root elements`, true);
  const rootName = elements[0]!;
  if (rootName !== "testsuites" && rootName !== "testsuite")
    throw new ReportError(`unexpected report root <${rootName}>`);
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new ReportError(`report is not well-formed XML (${valid.err.msg}, line ${valid.err.line})`);
  const root = (doc[rootName] as unknown[])[0];
  const cases: JunitCase[] = [];
  if (root && typeof root === "object") {
    if (rootName === "testsuite") walkSuite(root as Node, [], cases);
    else walkChildren(root as Node, [], cases);
  }
  return cases;
}

function walkChildren(node: Node, suites: string[], out: JunitCase[]): void {
  for (const c of (node.testcase as Node[] | undefined) ?? []) out.push(toCase(c, suites));
  for (const s of (node.testsuite as Node[] | undefined) ?? []) walkSuite(s, suites, out);
}

function walkSuite(suite: Node, outer: string[], out: JunitCase[]): void {
  walkChildren(suite, [...outer, attr(suite, "name")], out);
}

function toCase(node: Node, suites: string[]): JunitCase {
  const failures = (node.failure as unknown[] | undefined) ?? [];
  const errors = (node.error as unknown[] | undefined) ?? [];
  const skips = (node.skipped as unknown[] | undefined) ?? [];
  let status: CaseStatus = "passed";
  let detail: unknown[] = [];
  if (errors.length) {
    status = "error";
    detail = errors;
  } else if (failures.length) {
    status = "failed";
    detail = failures;
  } else if (skips.length) {
    status = skips.some((s) => attr(s, "type") === "pytest.xfail") ? "xfail" : "skipped";
    detail = skips;
  }
  const c: JunitCase = {
    name: attr(node, "name"),
    classname: attr(node, "classname"),
    suites,
    status,
    message: detail.map(describe).join("\n").slice(0, MESSAGE_CAP),
    timeSec: Number(attr(node, "time")) || 0,
  };
  const file = attr(node, "file");
  if (file) c.file = file;
  return c;
}

function attr(node: unknown, name: string): string {
  if (node && typeof node === "object") {
    const value = (node as Node)[`@_${name}`];
    if (typeof value === "string") return value;
  }
  return "";
}

function describe(child: unknown): string {
  if (typeof child === "string") return child;
  const message = attr(child, "message");
  const text = child && typeof child === "object" ? (child as Node)["#text"] : undefined;
  return [message, typeof text === "string" ? text : ""].filter(Boolean).join("\n");
}
