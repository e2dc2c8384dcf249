// Functions over 100 lines and files over 400 lines in src/ (non-test .ts files).
import ts from "typescript";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
const files = execFileSync("git", ["ls-files", "src/*.ts"], { encoding: "utf8" }).split("\n").filter((f) => f && !/\.test\.ts$|test-suite|test-support|\/testing\//.test(f));
const longFns = [], longFiles = [];
for (const f of files) {
  const text = readFileSync(f, "utf8");
  const lines = text.split("\n").length - 1;
  if (lines > 400) longFiles.push([f, lines]);
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n)) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line, b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (b - a + 1 > 100) {
        let name = n.name?.getText?.() ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText() : ts.isPropertyAssignment(n.parent) ? n.parent.name.getText() : "<anonymous>");
        longFns.push([`${f}:${a + 1}`, name, b - a + 1]);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
longFns.sort((x, y) => y[2] - x[2]); longFiles.sort((x, y) => y[1] - x[1]);
console.log("functions over 100 lines:", longFns.length); for (const x of longFns) console.log("  ", x.join("  "));
console.log("files over 400 lines:", longFiles.length); for (const x of longFiles) console.log("  ", x.join("  "));
