"use strict";
module.exports = { ...require("./version"), ...require("./range") };
