/** Departments: the account's teams; users belong to some, tickets to one (TICKET-55, TICKET-56). */

/** Read side and changes: the account's departments, a user's, create, rename, delete. */
export {
  createDepartment,
  deleteDepartment,
  departmentsOfUser,
  listDepartments,
  renameDepartment,
} from './departments.js';
/** HTTP routes of the module. */
export { departmentRoutes } from './departments.routes.js';
