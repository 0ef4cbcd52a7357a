import {
  AgentListAnswer,
  AgentListQuery,
  ContactProfileParams,
  ContactProfileQuery,
  ProfileAnswer,
  ProfileListAnswer,
  ProfileListQuery,
  SetPhotoAnswer,
  SetPhotoInput,
  UserInfoAnswer,
  UserInfoQuery,
  UserProfileQuery,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { setProfilePhoto } from './commands/setProfilePhoto.js';
import {
  activityOf,
  contactOfTicket,
  experienceOf,
  listAgents,
  listOfSubject,
  resolveSubject,
  type Viewer,
} from './profile.queries.js';

const viewerOf = (req: FastifyRequest): Viewer => {
  const a = req.auth!;
  return { accountId: a.accountId, userId: a.userId, admin: a.type === 'admin' };
};

/** PROFILE: the profile modal's calls. Every signed-in user of an account may read its people. */
export function profileRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  // PROFILE-08: a user's or contact's tickets or live chats, 10 a page, with exp and level.
  r.get(
    '/api/ticket/user/list',
    { config: { auth: 'user' }, schema: { querystring: ProfileListQuery, response: { 200: ProfileListAnswer } } },
    async (req) => {
      const viewer = viewerOf(req);
      const s = await resolveSubject(db, viewer, req.query.username);
      const [data, xp] = await Promise.all([
        listOfSubject(db, viewer, s, req.query.type, req.query.offset),
        experienceOf(db, viewer, s),
      ]);
      return { result: 'success' as const, data, ...xp };
    },
  );

  // PROFILE-09: a contact, from one of its tickets, and a page (5) of its activity.
  r.get(
    '/api/user/profile/:offset',
    {
      config: { auth: 'user' },
      schema: { params: ContactProfileParams, querystring: ContactProfileQuery, response: { 200: ProfileAnswer } },
    },
    async (req) => {
      const viewer = viewerOf(req);
      const s = await contactOfTicket(db, viewer, req.query);
      return { result: 'success' as const, data: s.data, activity: await activityOf(db, viewer, s, req.params.offset) };
    },
  );

  // PROFILE-11, PROFILE-12: a user's (or contact uid's) profile and a page of activity, for the modal.
  r.get(
    '/api/user/profile/data/info',
    { config: { auth: 'user' }, schema: { querystring: UserProfileQuery, response: { 200: ProfileAnswer } } },
    async (req) => {
      const viewer = viewerOf(req);
      const s = await resolveSubject(db, viewer, req.query.username);
      return { result: 'success' as const, data: s.data, activity: await activityOf(db, viewer, s, req.query.offset) };
    },
  );

  // PROFILE-11, PROFILE-12, PROFILE-15: the short user info (name, photo, username).
  r.get(
    '/api/user/profile2/info',
    { config: { auth: 'user' }, schema: { querystring: UserInfoQuery, response: { 200: UserInfoAnswer } } },
    async (req) => {
      const s = await resolveSubject(db, viewerOf(req), req.query.username);
      return {
        result: 'success' as const,
        data: { name: s.data.name, photo: s.data.photo, username: s.data.username },
      };
    },
  );

  // PROFILE-16: the caller's own profile picture, from an image uploaded through `POST /api/upload`.
  r.put(
    '/api/user/photo',
    { config: { auth: 'user' }, schema: { body: SetPhotoInput, response: { 200: SetPhotoAnswer } } },
    async (req) => {
      const a = req.auth!;
      const photo = await setProfilePhoto(db, { accountId: a.accountId, userId: a.userId }, req.body.file);
      return { result: 'success' as const, photo };
    },
  );

  // PROFILE-13, PROFILE-14, SEARCH-11: the account's agents, those whose name or username holds `keyword`
  // (else `search`) when one is given; the token may be the path segment.
  for (const path of ['/agent/:token', '/api/agent/:token'])
    r.get(
      path,
      {
        config: { auth: 'user' },
        schema: {
          params: z.object({ token: z.string().max(200) }),
          querystring: AgentListQuery,
          response: { 200: AgentListAnswer },
        },
      },
      async (req) => ({
        result: 'success' as const,
        data: await listAgents(db, req.auth!.accountId, (req.query.keyword || req.query.search || '').trim()),
      }),
    );
}
