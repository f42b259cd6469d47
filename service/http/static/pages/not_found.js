// The page for an address Banco has no page at (its text is in the shell, templates/page.html):
// only the header's sign-in state is drawn here.
import { header } from "../banco.js";

await header();
