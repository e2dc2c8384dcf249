export { plural, pluralize } from "./pluralize.js";
