/**
 * Each management route's success answer, by the name the document gives the route: the map
 * functions/http/routes.ts types the console's and the CLI's calls with (a type-only import there, so
 * the console's bundle carries no schema), and test/http/contract.test.ts holds to the document.
 */

import { capacitySchema } from './capacity-contract';
import {
  attemptPageSchema,
  backlogSchema,
  deliveryPageSchema,
  enableResultSchema,
  enrollmentDetailSchema,
  enrollmentPageSchema,
  eventCatalogueSchema,
  eventPageSchema,
  eventWithDeliveriesSchema,
  fleetEnrolledSchema,
  recentMetricsSchema,
  recoverResultSchema,
  replayResultSchema,
  secretRotatedSchema,
  subscriptionCreatedSchema,
  subscriptionPageSchema,
  subscriptionSchema,
  testDeliverySchema,
  unenrolledSchema,
  vehicleDetailSchema,
  vehicleSchema,
} from './contract';
import { vehicleStateSchema } from './state-contract';

/** Each management route's success answer: its schema, or `null` when it answers no body (204). */
export const routeAnswers = {
  'GET /enrollments': enrollmentPageSchema,
  'POST /enrollments/contracts': fleetEnrolledSchema,
  'GET /enrollments/{id}': enrollmentDetailSchema,
  'DELETE /enrollments/{id}': unenrolledSchema,
  'GET /vehicles/{id}': vehicleDetailSchema,
  'GET /vehicles/{id}/state': vehicleStateSchema,
  'POST /vehicles/{id}/pause': vehicleSchema,
  'POST /vehicles/{id}/resume': vehicleSchema,
  'GET /events': eventPageSchema,
  'GET /events/{id}': eventWithDeliveriesSchema,
  'GET /event-types': eventCatalogueSchema,
  'GET /metrics/recent': recentMetricsSchema,
  'GET /capacity': capacitySchema,
  'GET /subscriptions': subscriptionPageSchema,
  'POST /subscriptions': subscriptionCreatedSchema,
  'GET /subscriptions/{id}': subscriptionSchema,
  'PATCH /subscriptions/{id}': subscriptionSchema,
  'DELETE /subscriptions/{id}': null,
  'POST /subscriptions/{id}/rotate-secret': secretRotatedSchema,
  'POST /subscriptions/{id}/test': testDeliverySchema,
  'POST /subscriptions/{id}/sample': testDeliverySchema,
  'GET /subscriptions/{id}/backlog': backlogSchema,
  'POST /subscriptions/{id}/enable': enableResultSchema,
  'POST /subscriptions/{id}/disable': subscriptionSchema,
  'GET /subscriptions/{id}/deliveries': attemptPageSchema,
  'GET /subscriptions/{id}/dead-letters': deliveryPageSchema,
  'POST /subscriptions/{id}/replay': replayResultSchema,
  'POST /subscriptions/{id}/recover': recoverResultSchema,
} as const;
