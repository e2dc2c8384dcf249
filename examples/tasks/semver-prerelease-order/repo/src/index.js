export { SemVerError, format, parse, valid } from "./parse.js";
export { compare, eq, gt, gte, lt, lte, max, neq, rcompare, rsort, sort } from "./compare.js";
export { satisfies } from "./range.js";
