/** Products: the account's catalogue, the tickets and knowledge base articles linked to each product. */

/** The links: a ticket's products, a product's articles. */
export { setProductArticles, setTicketProducts } from './commands/linkProducts.js';
/** Create, edit, archive and restore (admins). */
export { createProduct, updateProduct } from './commands/saveProduct.js';
/** Read side: the list with counts, one product, its tickets (as the viewer may see them), a ticket's products. */
export { listProducts, productDetail, productTickets, ticketProducts } from './products.queries.js';
/** HTTP routes of the module. */
export { productRoutes } from './products.routes.js';
