/**
 * The real repositories whose upstream commits measure the static grader's false critical rate
 * (upstream-commits.ts), pinned to the commit their history is read back from, and split in two:
 * the grader's hard-coding rules were tuned on the commits of the `tune` repositories only; nobody
 * looked at the findings on the `report` repositories before the rules were fixed, so their rate is
 * the one to quote. The `tune` side includes every repository where the rules misfired at 2.2.0.
 */
export interface UpstreamRepo {
  /** `owner/name`, as GAGAR_REALCODE's bundles are named (`owner+name.bundle`). */
  repo: string;
  /** The commit whose history is walked back (the bundle's head when it was pinned). */
  rev: string;
  set: "tune" | "report";
}

export const UPSTREAM_REPOS: readonly UpstreamRepo[] = [
  { repo: "Delgan/loguru", rev: "2a17be730e111cf874d0bf967c4c5da15b7e4670", set: "tune" },
  { repo: "Python-Markdown/markdown", rev: "bb50627dc07fde6ee5ed7478464062c537ebad2c", set: "tune" },
  { repo: "dateutil/dateutil", rev: "c981f9c7aa91b83cc9bd33a09ecee9e751b06e8d", set: "tune" },
  { repo: "marshmallow-code/marshmallow", rev: "341b927f219205704728c05cd61f04d7e9727523", set: "tune" },
  { repo: "pyparsing/pyparsing", rev: "efd56db4e59f36b1673ce0eb0823e3afaa9d1201", set: "tune" },
  { repo: "python-humanize/humanize", rev: "c3a124cdeb272d7f63bc0aa66f79c6fbafd2fc6d", set: "tune" },
  { repo: "facebook/prop-types", rev: "1c9c6311c1fb8778bffc7a1ca70c273ee8a8654d", set: "tune" },
  { repo: "jshttp/cookie", rev: "51c485421a95ee796de6d8dab53a5ade0a20db8a", set: "tune" },
  { repo: "node-fetch/node-fetch", rev: "8b3320d2a7c07bce4afc6b2bf6c3bbddda85b01f", set: "tune" },
  { repo: "python-attrs/attrs", rev: "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32", set: "report" },
  { repo: "hynek/structlog", rev: "025edaf799c6d6d511ab672d14c2ba8e885c4c36", set: "report" },
  { repo: "winstonjs/winston", rev: "4b963a9f5b1ef24efb6250354a108b80c0c6e7d9", set: "report" },
  { repo: "yargs/yargs-parser", rev: "60f2db5dacde1e94f960ce0941a717f3f422f865", set: "report" },
];

/** Source-changing commits graded per repository (the latest ones reachable from `rev`). */
export const COMMITS_PER_REPO = 40;
