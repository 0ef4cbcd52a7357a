import { Center, Loader } from '@mantine/core';
import { type AuthCheckAnswer, PLANS } from '@parley/contracts';
import { type ComponentType, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { ChatBadge } from '../features/chat/ChatBadge';
import { lazyScreen } from '../lib/lazyRetry';
import { useConnected } from '../lib/useConnected';
import { HomePage } from './home/HomePage';
import { NotFoundPage } from './NotFoundPage';
import { SignedInLayout } from './SignedInLayout';

const screens = () => import('../features/screens/Screens');
const S = (name: keyof Awaited<ReturnType<typeof screens>>) => lazyScreen(screens, name);

const Tickets = lazyScreen(() => import('./tickets/TicketListScreen'), 'TicketListScreen');
const TicketConversation = lazyScreen(() => import('./tickets/TicketConversationScreen'), 'TicketConversationScreen');
const LiveChat = lazyScreen(() => import('./conversations/LiveChatsPage'), 'LiveChatsPage');
const Chat = lazyScreen(() => import('./conversations/ChatPage'), 'ChatPage');
const PublicDashboard = lazyScreen(() => import('../features/reports/PublicDashboardPage'), 'PublicDashboardPage');
const Omnichannel = lazyScreen(() => import('../features/reports/OmnichannelScreen'), 'OmnichannelScreen');
const CallReport = lazyScreen(() => import('../features/reports/CallReportScreen'), 'CallReportScreen');
const TicketSummary = lazyScreen(() => import('../features/reports/TicketSummaryScreen'), 'TicketSummaryScreen');
const Call = lazyScreen(() => import('../features/calls/CallsScreen'), 'CallsScreen');
const Contacts = lazyScreen(() => import('../features/contacts/ContactsScreen'), 'ContactsScreen');
const Case = lazyScreen(() => import('../features/cases/CasesScreen'), 'CasesScreen');
const CustomerAnalysis = lazyScreen(
  () => import('../features/contacts/CustomerAnalysisScreen'),
  'CustomerAnalysisScreen',
);
const Calendar = lazyScreen(() => import('../features/calendar/CalendarScreen'), 'CalendarScreen');
const Kanban = lazyScreen(() => import('../features/kanban/KanbanScreen'), 'KanbanScreen');
const Supervisory = lazyScreen(() => import('../features/supervisory/SupervisoryScreen'), 'SupervisoryScreen');
const CallConfig = lazyScreen(() => import('../features/calls/CallConfigScreen'), 'CallConfigScreen');
const ScamCalls = lazyScreen(() => import('../features/scamCalls/ScamCallsScreen'), 'ScamCallsScreen');
const Analyst = lazyScreen(() => import('../features/trading/AnalystScreen'), 'AnalystScreen');
const Insight = lazyScreen(() => import('../features/trading/InsightScreen'), 'InsightScreen');
const PredictionValidator = S('PredictionValidatorScreen');
const AiLearning = S('AiLearningScreen');
const Recording = lazyScreen(() => import('../features/calls/RecordingsScreen'), 'RecordingsScreen');
const VoiceUpload = lazyScreen(() => import('../features/calls/VoiceUploadScreen'), 'VoiceUploadScreen');
const Forms = lazyScreen(() => import('../features/forms/FormsScreen'), 'FormsScreen');
const Campaign = lazyScreen(() => import('../features/campaigns/CampaignsScreen'), 'CampaignScreen');
const ProductList = lazyScreen(() => import('../features/products/ProductListScreen'), 'ProductListScreen');
const ProductPage = lazyScreen(() => import('../features/products/ProductPageScreen'), 'ProductPageScreen');
const Timer = lazyScreen(() => import('../features/timer/TimerScreen'), 'TimerScreen');
const Plan = lazyScreen(() => import('../features/billing/PlanScreen'), 'PlanScreen');
const Interactions = lazyScreen(() => import('../features/interactions/InteractionsScreen'), 'InteractionsScreen');
const ApiReference = lazyScreen(() => import('../features/apiReference/ApiReferenceScreen'), 'ApiReferenceScreen');
const Sms = lazyScreen(() => import('../features/channels/SmsScreen'), 'SmsScreen');
const Knowledge = lazyScreen(() => import('../features/kb/KnowledgeScreen'), 'KnowledgeScreen');
const About = S('AboutPage');
const NoConversations = S('NoConversationsScreen');
const ChatNotAllowed = S('ChatNotAllowedScreen');
const settings = () => import('./settings/SettingsPage');
const Settings = lazyScreen(settings, 'SettingsPage') as unknown as ComponentType<{ session: AuthCheckAnswer }>;

function ScreenLoader() {
  return (
    <Center mih="50dvh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

/** SHELL-22: these screens need the live socket (and, later, the departments) before they render. */
function NeedsLive({ children }: { children: ReactNode }) {
  const connected = useConnected();
  return connected ? children : <ScreenLoader />;
}

/**
 * SHELL-30, PLAN-09: an account held at plan 99 (a console account) has no conversation
 * lists and no conversation view.
 */
function Conversation({ session, list: List }: { session: AuthCheckAnswer; list: ComponentType }) {
  const { '*': rest } = useParams();
  if (session.plan === PLANS.console && rest) return <Navigate to="/" replace />;
  if (session.plan === PLANS.console) return <NoConversations />;
  return <List />;
}

/** Every signed-in route of both documents (SHELL-12 .. SHELL-26). */
export function SignedInApp({ session }: { session: AuthCheckAnswer }) {
  const features = session.productDetails?.features ?? [];
  const dashboard = features.includes('dashboard');
  const live = (C: ComponentType) => (
    <NeedsLive>
      <C />
    </NeedsLive>
  );
  return (
    <Suspense fallback={<ScreenLoader />}>
      <ChatBadge />
      <Routes>
        <Route element={<SignedInLayout session={session} />}>
          <Route path="/" element={<HomePage session={session} />} />
          {/* SHELL-18: the dashboard is an account feature. */}
          <Route path="/dashboard" element={dashboard ? <HomePage session={session} /> : <Navigate to="/" replace />} />
          {/* SHELL-07: a public dashboard's link opened while signed in shows the same read-only page. */}
          <Route path="/dashboard/:id" element={<PublicDashboard />} />
          <Route path="/settings/:tab?" element={<Settings session={session} />} />
          <Route path="/about" element={<About />} />
          <Route path="/api_reference" element={<ApiReference />} />
          <Route path="/ticket/:id" element={<TicketConversation />} />
          <Route path="/ticket/*" element={<Conversation session={session} list={Tickets} />} />
          <Route path="/livechat/*" element={<Conversation session={session} list={LiveChat} />} />
          {/* HOST-07: the chat view only on the product's own hosts and local ones. */}
          <Route
            path="/chat/*"
            element={
              session.productDetails?.chat_allowed === false ? (
                <ChatNotAllowed />
              ) : (
                <Conversation session={session} list={Chat} />
              )
            }
          />
          <Route path="/call/*" element={<Call />} />
          <Route path="/report/omnichannel" element={<Omnichannel />} />
          <Route path="/report/call" element={<CallReport />} />
          <Route path="/report/:type/:status" element={<TicketSummary />} />
          <Route path="/report/*" element={<Navigate to="/report/omnichannel" replace />} />
          <Route path="/interactions" element={<Interactions />} />
          <Route path="/upload" element={<VoiceUpload />} />
          <Route path="/recording" element={<Recording />} />
          <Route path="/contacts/*" element={<Contacts />} />
          <Route path="/forms" element={<Forms />} />
          <Route path="/case/*" element={<Case />} />
          <Route path="/customer_analysis/*" element={<CustomerAnalysis />} />
          <Route path="/campaign/:id?" element={<Campaign />} />
          <Route path="/kb" element={<Knowledge />} />
          <Route path="/support" element={<Knowledge />} />
          <Route path="/support/:type/:lang/*" element={<Knowledge />} />
          <Route path="/mobile/*" element={<Tickets />} />
          <Route path="/payment" element={<Plan />} />
          <Route path="/plan" element={<Plan />} />
          <Route path="/sms/*" element={<Sms />} />
          <Route path="/timer" element={<Timer />} />
          <Route path="/product" element={<ProductList />} />
          <Route path="/product/:id" element={<ProductPage />} />
          <Route path="/calendar" element={<Calendar />} />
          <Route path="/calendar/:contact" element={<Calendar />} />
          <Route path="/calendar/event/:eventId" element={<Calendar />} />
          <Route path="/call_config" element={<CallConfig />} />
          <Route path="/supervisory" element={live(Supervisory)} />
          <Route path="/kanban" element={live(Kanban)} />
          <Route path="/analyst_intelligence/:channel?/:id?" element={live(Analyst)} />
          <Route path="/prediction_validator" element={live(PredictionValidator)} />
          <Route path="/integrated_insight" element={live(Insight)} />
          <Route path="/ai_learning" element={live(AiLearning)} />
          <Route path="/call_verification" element={live(ScamCalls)} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
        {/* SHELL-16: signed-in users opening these go home. */}
        {['/pricing', '/contact', '/login', '/signup', '/password_reset'].map((p) => (
          <Route key={p} path={p} element={<Navigate to="/" replace />} />
        ))}
      </Routes>
    </Suspense>
  );
}
