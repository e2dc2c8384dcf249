import { slugify } from "./src/index.js";

for (const title of ["Crème Brûlée: A How-To", "Déjà vu?", "Hello, World!", "Ça va? Très bien!"]) {
  console.log(`${title.padEnd(26)} -> ${slugify(title)}`);
}
