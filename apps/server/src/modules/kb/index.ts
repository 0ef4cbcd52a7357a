/** The knowledge base and the support manual (see docs/kb.md). */

/** Articles: create and change (every user), publish, unpublish, delete (admins and supervisors). */
export { createArticle, deleteArticle, ensureSite, setArticleStatus, updateArticle } from './commands/saveArticle.js';
/** Categories (admins and supervisors). */
export { createCategory, deleteCategory, updateCategory } from './commands/saveCategory.js';
/** Read side: lists, full-text search, one article, the public views. */
export { getArticle, listArticles, listCategories, searchPublished } from './kb.queries.js';
/** HTTP routes: the editor's and the popup's (signed in). */
export { kbRoutes } from './kb.routes.js';
/** HTTP routes: the public pages' data, images and sitemap (no sign-in). */
export { kbPublicRoutes } from './kbPublic.routes.js';
