export { slugify } from "./slugify.js";
export { truncate } from "./truncate.js";
export { wrap } from "./wrap.js";
