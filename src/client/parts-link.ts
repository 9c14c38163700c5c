import type { Connection } from "../connection/connection.js";
import type { ConnectionHooks, ServerRequestInfo, TransitionEvent } from "../connection/types.js";
import type { RequestShaper } from "../protocol/era.js";
import type { KnownEras } from "../protocol/known-era.js";
import type { Session } from "../protocol/negotiator.js";
import type { Backoff } from "../shared/backoff.js";
import { Deadline } from "../shared/deadline.js";
import type { McpClientError } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from "../shared/jsonrpc.js";
import type { Era } from "../shared/versions.js";
import type { BaseMeta, Telemetry } from "../telemetry/events.js";
import type { OpenTelemetryBridge } from "../telemetry/open-telemetry.js";
import type { CacheKind, CredentialIdentity } from "./cache/list-cache.js";
import type { SharedLists } from "./cache/shared-lists.js";
import type { InputService } from "./input/service.js";
import { admitToolPages, type PageIntake, type Rejected, type ToolIntake } from "./intake.js";
import { LIST_METHODS, type ListAllOptions, type Lists } from "./lists.js";
import type { ListKind, NotificationFanOut, ServerNotification } from "./notifications/fan-out.js";
import type { ResolvedClientOptions } from "./options.js";
import type { Requester } from "./requester.js";
import { expectComplete } from "./results.js";
import type { ListenFilter, Subscriptions } from "./subscriptions.js";
import type { Tasks } from "./tasks.js";
import type { RequestOptions, Tool } from "./types.js";

/** A request of the client's own, with no caller's options. */
const NO_OPTIONS: RequestOptions = {};

/** What the link reads of the client's parts (client/parts.ts's `ClientParts`). */
export interface Linked {
  readonly o: ResolvedClientOptions;
  readonly conn: Connection<Session>;
  readonly telemetry: Telemetry;
  readonly otel: OpenTelemetryBridge | null;
  readonly shaper: RequestShaper;
  readonly requester: Requester;
  readonly input: InputService;
  readonly fanOut: NotificationFanOut;
  readonly lists: Lists;
  readonly subs: Subscriptions;
  readonly tasks: Tasks;
  readonly backoff: Backoff;
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  warn(text: string): void;
  toolRejected(r: Rejected): void;
  onNotification(m: JsonRpcNotification): void;
  onServerRequest(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject>;
  onTransition(event: TransitionEvent): void;
  resendSessionState(): void;
  checkResult(method: string, result: JsonObject): McpClientError | undefined;
  credentialIdentity(): CredentialIdentity;
  credentialGeneration(): number;
}

/**
 * What the parts ask of each other, as one object per client whose methods are on its prototype:
 * the connection's hooks and the dependencies of the input service, the shaper, the negotiator,
 * the notification fan-out, the lists, subscriptions, tasks and tool calls. It was a record of
 * closures per part (about 40 closures, their contexts and records: ~3 KB per client, issue 26);
 * each method reads the parts when called, so nothing is copied and nothing goes stale.
 */
export class PartsLink implements ConnectionHooks {
  readonly p: Linked;
  /** The era store shared with other clients (`stores.eras`), when given. */
  eras: KnownEras | undefined = undefined;
  /** The list store shared with other clients (`stores.lists`), when given. */
  shared: SharedLists | undefined = undefined;

  constructor(p: Linked) {
    this.p = p;
  }

  // ---- plain values, read from the options when asked ----
  get client(): string {
    return this.p.o.name;
  }
  get serverId(): string {
    return this.p.o.serverId;
  }
  get requestTimeout(): number {
    return this.p.o.requestTimeout;
  }
  get handshakeTimeout(): number {
    return this.p.o.requestTimeout;
  }
  get clientInfo() {
    return this.p.o.clientInfo;
  }
  get protocol() {
    return this.p.o.protocol;
  }
  get prior() {
    return this.p.o.prior;
  }
  get probeTimeout(): number {
    return this.p.o.probeTimeout;
  }
  get maxDepth(): number {
    return this.p.o.maxDepth;
  }
  get maxCacheTtl(): number {
    return this.p.o.maxCacheTtl;
  }
  get listLimits() {
    return this.p.o.listLimits;
  }
  get callUnlistedTools(): boolean {
    return this.p.o.callUnlistedTools;
  }
  get logRateLimit() {
    return this.p.o.logRateLimit;
  }
  get principal(): string | null {
    return this.p.o.principal;
  }
  get validateOutput(): boolean {
    return this.p.o.validateOutput;
  }
  /** The first call beside the first listing needs room for both (the options have the fields). */
  get limits(): { maxInFlight: number; maxQueued: number; transportKind: string } {
    return this.p.o;
  }
  get interceptors() {
    return this.p.o.interceptors;
  }
  get grants() {
    return this.p.o.stores.grants;
  }
  get budget() {
    return this.p.requester.budget;
  }
  get telemetry(): Telemetry {
    return this.p.telemetry;
  }
  get events(): Telemetry {
    return this.p.telemetry;
  }
  get otel(): OpenTelemetryBridge | null {
    return this.p.otel;
  }
  get capture() {
    return this.p.o.capturePayloads;
  }
  /** The tool calls' tracing: telemetry, otel and capture are this object's. */
  get tracing(): this {
    return this;
  }
  /** The tool calls' `ToolSource`: `find` is this object's. */
  get tools(): this {
    return this;
  }
  get connection(): Connection<Session> {
    return this.p.conn;
  }
  get requester(): Requester {
    return this.p.requester;
  }
  get input(): InputService {
    return this.p.input;
  }
  get lists(): Lists {
    return this.p.lists;
  }
  get backoff(): Backoff {
    return this.p.backoff;
  }

  // ---- the connection's hooks ----
  notification(m: JsonRpcNotification): void {
    this.p.onNotification(m);
  }
  serverRequest(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject> {
    return this.p.onServerRequest(m, info);
  }
  warn(text: string): void {
    this.p.warn(text);
  }
  transition(event: TransitionEvent): void {
    this.p.onTransition(event);
  }
  sessionRenewed(): void {
    this.p.resendSessionState();
  }
  checkResult(method: string, result: JsonObject): McpClientError | undefined {
    return this.p.checkResult(method, result);
  }

  // ---- the input service, shaper and negotiator ----
  era(): Era | null {
    return this.p.conn.session?.era ?? null;
  }
  pauseDeadline(id: RequestId): () => void {
    return this.p.conn.pauseDeadline(id);
  }
  legacyCapabilities(): JsonObject {
    return this.p.input.legacyCapabilities();
  }
  modernCapabilities(): JsonObject {
    return this.p.input.modernCapabilities();
  }

  // ---- the notification fan-out ----
  listChanged(kind: ListKind): void {
    this.p.lists.changed(kind);
  }
  forward(n: ServerNotification): void {
    this.p.input.deliver(n);
  }
  consumersChanged(): void {
    this.p.subs.onInterestChanged();
  }

  // ---- telemetry ----
  /** What every event of this client carries. */
  telemetryBase(): BaseMeta {
    const o = this.p.o;
    return {
      client: o.name,
      serverId: o.serverId,
      transport: o.transportKind,
      era: this.p.conn?.session?.era ?? null,
    };
  }

  // ---- the lists ----
  identity(): CredentialIdentity {
    return this.p.credentialIdentity();
  }
  credentialGeneration(): number {
    return this.p.credentialGeneration();
  }
  deadline(options: RequestOptions): Deadline {
    return this.p.requester.deadline(options);
  }
  fetchPage(
    kind: CacheKind,
    cursor: string | undefined,
    deadline: Deadline,
    heard: (text: string, id: RequestId) => void,
  ): Promise<JsonObject> {
    return this.p.requester
      .request(LIST_METHODS[kind], cursor === undefined ? {} : { cursor }, NO_OPTIONS, { deadline, heard })
      .then(expectComplete);
  }
  admitTools(pages: unknown[][], known: Array<PageIntake | undefined>): ToolIntake {
    const o = this.p.o;
    return admitToolPages(pages, known, o.serverId, o.toolRule, o.maxDepth);
  }
  toolRejected(r: Rejected): void {
    this.p.toolRejected(r);
  }
  announce(n: ServerNotification): void {
    this.p.fanOut.announce(n);
  }

  // ---- subscriptions ----
  ready(): boolean {
    return this.p.conn.state === "ready";
  }
  serverCapabilities(): JsonObject | null {
    return this.p.conn.session?.capabilities ?? null;
  }
  interest(): { tools: boolean; resources: boolean; prompts: boolean } {
    const p = this.p;
    const anyone = p.fanOut.hasSubscribers || p.input.takesNotifications;
    return {
      tools: anyone || p.lists.interest("tools"),
      resources: anyone || p.lists.interest("resources"),
      prompts: anyone || p.lists.interest("prompts"),
    };
  }
  listen(filter: ListenFilter, signal: AbortSignal, onId: (id: number) => void): Promise<JsonObject> {
    const p = this.p;
    return p.conn.request(
      "subscriptions/listen",
      (session, token, id) => {
        onId(id);
        // Task status notifications need the tasks extension declared on the listen itself.
        const withTasks = filter.taskIds !== undefined;
        return p.shaper.params({ notifications: filter }, session, token, { withTasks });
      },
      // The client's own stream: no deadline, and none of the caller's maxInFlight slots.
      { deadline: new Deadline(Number.POSITIVE_INFINITY), signal, background: true },
    );
  }
  request(
    method: string,
    params: JsonObject,
    opts: RequestOptions,
    deadline?: Deadline,
  ): Promise<JsonObject> {
    return this.p.requester.request(method, params, opts, { deadline });
  }

  // ---- tasks and tool calls ----
  tasks(): Tasks {
    return this.p.tasks;
  }
  watch(taskId: string): () => void {
    return this.p.subs.watchTask(taskId);
  }
  async findTool(
    name: string,
    deadline: Deadline,
    signal: AbortSignal | undefined,
  ): Promise<Tool | undefined> {
    const find = (tools: Tool[] | undefined) => tools?.find((t) => t.name === name);
    const p = this.p;
    return find(p.lists.tools.peek()) ?? find(await p.listAllTools({ timeout: deadline.left(), signal }));
  }
  /**
   * The definition governance judges: the listing (cached while fresh), asked again once when the
   * tool is not in it (a tool added since).
   */
  async find(name: string, opts: { timeout: number; signal?: AbortSignal }): Promise<Tool | undefined> {
    const find = (tools: Tool[]) => tools.find((t) => t.name === name);
    const p = this.p;
    return find(await p.listAllTools(opts)) ?? find(await p.listAllTools({ ...opts, refresh: true }));
  }
}
