/** Search snippets are split in lib/snippet (the knowledge base's lists show them too). */
export { snippetParts } from '../../lib/snippet';
