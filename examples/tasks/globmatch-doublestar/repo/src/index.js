export { globToRegExp } from "./compile.js";
export { filter, isMatch, matcher } from "./match.js";
