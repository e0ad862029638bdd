/**
 * Deterministic, realistic benchmark input (seeded PRNG, so runs are comparable): memory-like facts in
 * Chinese and English, mixed engineering conversations (decisions, settings, preferences and events the
 * rules keep; hedges, small talk, venting and secrets they drop or redact), recall questions, and VS Code
 * chat exports. Slots (components, numbers, people, versions) are combined so that texts rarely repeat
 * and are not deduplicated away.
 */
import type { RawMessage, SessionInput } from '../../sidecar/pipeline/types';

/** mulberry32: a small seeded PRNG (same as bench/pipeline.ts). */
export function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const COMPONENTS = [
  'payment-gateway',
  'auth-service',
  'order-api',
  'billing-worker',
  'search-indexer',
  'notification-hub',
  'user-profile',
  'inventory-sync',
  'report-exporter',
  'scada-bridge',
  'modbus-poller',
  'edge-agent',
  'kafka-consumer',
  'redis-cache',
  'postgres-primary',
  'clickhouse-etl',
  'grafana-alerts',
  'nginx-ingress',
  'k8s-operator',
  'ci-runner',
  'feature-flags',
  'image-resizer',
  'pdf-renderer',
  'mqtt-broker',
  'opc-ua-client',
  'plc-gateway',
  'hmi-frontend',
  'audit-logger',
  'sso-proxy',
  'rate-limiter',
  'webhook-relay',
  'geo-service',
  'ml-scoring',
  'data-lake-loader',
  'backup-cron',
  'config-server',
  'tenant-router',
  'email-sender',
  'cdn-purger',
  'session-store',
];
const COMPONENTS_ZH = [
  '支付网关',
  '认证服务',
  '订单接口',
  '计费任务',
  '搜索索引',
  '消息推送',
  '用户画像',
  '库存同步',
  '报表导出',
  'SCADA 桥接',
  'Modbus 采集',
  '边缘节点',
  'Kafka 消费者',
  'Redis 缓存',
  'Postgres 主库',
  'ClickHouse 入仓',
  '告警规则',
  '网关 Ingress',
  'K8s Operator',
  'CI 构建机',
  '灰度开关',
  '图片服务',
  'PDF 渲染',
  'MQTT 代理',
  'OPC UA 客户端',
  'PLC 网关',
  'HMI 前端',
  '审计日志',
  '单点登录',
  '限流组件',
  'Webhook 转发',
  '地理服务',
  '风控模型',
  '数据湖加载',
  '备份任务',
  '配置中心',
  '租户路由',
  '邮件服务',
  'CDN 刷新',
  '会话存储',
];
const PEOPLE = [
  'Alice',
  'Bob',
  'Chen Wei',
  'Li Na',
  'Wang Fang',
  'Zhang Lei',
  'Priya',
  'Marco',
  'Yuki',
  'Omar',
  '老王',
  '小李',
];
const TOOLS = [
  'pnpm',
  'uv',
  'poetry',
  'cargo',
  'gradle',
  'bazel',
  'make',
  'just',
  'tox',
  'nx',
  'turbo',
  'helm',
  'kustomize',
  'terraform',
];
const EDITORS = ['vim', 'neovim', 'emacs', 'VS Code', 'JetBrains', 'helix'];
const ENVS = ['staging', 'prod', 'dev', 'qa', 'perf', 'canary'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const DAYS_ZH = ['周一', '周二', '周三', '周四', '周五'];
const REASONS = [
  'because the upstream times out under load',
  'so that retries do not pile up',
  'since the old driver leaks connections',
  'to keep p99 latency under 200 ms',
  'after the outage in the last release',
  'because the vendor changed their API limits',
  'so the nightly report finishes before 7am',
  'to avoid double billing on retries',
];
const REASONS_ZH = [
  '因为上游在高峰期会超时',
  '避免重试堆积',
  '旧驱动有连接泄漏',
  '保证 p99 延迟低于 200 毫秒',
  '上次发布出过故障',
  '厂商调整了接口限额',
  '让夜间报表在七点前跑完',
  '防止重试导致重复扣费',
];

const version = (r: Rand): string => `${int(r, 1, 9)}.${int(r, 0, 30)}.${int(r, 0, 20)}`;

const FACT_EN: ((r: Rand) => string)[] = [
  (r) =>
    `We decided to set the ${pick(r, COMPONENTS)} timeout to ${int(r, 2, 120) * 50} ms ${pick(r, REASONS)}.`,
  (r) =>
    `Always run ${pick(r, TOOLS)} ${pick(r, ['test', 'lint', 'build', 'check'])} before pushing changes to ${pick(r, COMPONENTS)}.`,
  (r) =>
    `${pick(r, PEOPLE)} prefers ${pick(r, EDITORS)} and ${pick(r, TOOLS)}; never suggest ${pick(r, EDITORS)} for ${pick(r, COMPONENTS)} work.`,
  (r) =>
    `The ${pick(r, ENVS)} ${pick(r, COMPONENTS)} database is reset every ${pick(r, DAYS)} at ${int(r, 0, 23)}:${pick(r, ['00', '15', '30', '45'])} UTC.`,
  (r) =>
    `Deploy ${pick(r, COMPONENTS)} ${version(r)} to ${pick(r, ENVS)} only after ${pick(r, PEOPLE)} signs off the migration.`,
  (r) =>
    `${pick(r, COMPONENTS)} listens on port ${int(r, 1024, 65000)} behind ${pick(r, COMPONENTS)} ${pick(r, REASONS)}.`,
  (r) =>
    `Root cause: ${pick(r, COMPONENTS)} dropped idle connections after ${int(r, 10, 600)} s; fixed by enabling keepalive in ${version(r)}.`,
  (r) =>
    `Use ${pick(r, TOOLS)} instead of ${pick(r, TOOLS)} in the ${pick(r, COMPONENTS)} repository ${pick(r, REASONS)}.`,
  (r) =>
    `Set the retry limit of ${pick(r, COMPONENTS)} to ${int(r, 1, 9)} with exponential backoff capped at ${int(r, 2, 60)} s.`,
  (r) =>
    `The flaky test in ${pick(r, COMPONENTS)}/${pick(r, ['auth', 'cart', 'sync', 'export', 'poll'])}.spec.ts fails when the clock crosses midnight in ${pick(r, ['UTC', 'Asia/Shanghai', 'Europe/Berlin'])}.`,
  (r) =>
    `Pin ${pick(r, ['openssl', 'protobuf', 'grpc', 'numpy', 'react', 'log4j', 'netty'])} to ${version(r)} in ${pick(r, COMPONENTS)}; ${version(r)} breaks the build.`,
  (r) =>
    `On-call for ${pick(r, COMPONENTS)} rotates every ${pick(r, DAYS)}; page ${pick(r, PEOPLE)} first for ${pick(r, ENVS)} incidents.`,
];
const FACT_ZH: ((r: Rand) => string)[] = [
  (r) => `${pick(r, COMPONENTS_ZH)} 的超时时间设为 ${int(r, 2, 120) * 50} 毫秒,${pick(r, REASONS_ZH)}。`,
  (r) =>
    `推送 ${pick(r, COMPONENTS_ZH)} 的代码前必须先跑 ${pick(r, TOOLS)} ${pick(r, ['test', 'lint', 'build'])}。`,
  (r) => `${pick(r, PEOPLE)} 习惯用 ${pick(r, EDITORS)},不要给他推荐 ${pick(r, EDITORS)}。`,
  (r) =>
    `${pick(r, ENVS)} 环境的 ${pick(r, COMPONENTS_ZH)} 数据库每${pick(r, DAYS_ZH)}早上 ${int(r, 1, 9)} 点重置。`,
  (r) =>
    `${pick(r, COMPONENTS_ZH)} ${version(r)} 只有在 ${pick(r, PEOPLE)} 确认迁移后才能发布到 ${pick(r, ENVS)}。`,
  (r) =>
    `决定把 ${pick(r, COMPONENTS_ZH)} 放到 ${pick(r, COMPONENTS_ZH)} 后面,端口 ${int(r, 1024, 65000)},${pick(r, REASONS_ZH)}。`,
  (r) => `排查后确认根因是 ${pick(r, COMPONENTS_ZH)} 站号配置错误,改为 ${int(r, 1, 32)} 后通讯恢复。`,
  (r) => `${pick(r, COMPONENTS_ZH)} 仓库统一用 ${pick(r, TOOLS)},不要用 ${pick(r, TOOLS)}。`,
  (r) => `${pick(r, COMPONENTS_ZH)} 的重试次数设为 ${int(r, 1, 9)} 次,退避上限 ${int(r, 2, 60)} 秒。`,
  (r) =>
    `TCP RST 包集中出现在端口 ${int(r, 100, 9999)},确认为 ${pick(r, COMPONENTS_ZH)} 协议栈异常,非网络层问题。`,
  (r) =>
    `${pick(r, COMPONENTS_ZH)} 的依赖 ${pick(r, ['openssl', 'protobuf', 'grpc', 'numpy', 'netty'])} 固定在 ${version(r)},升级会导致构建失败。`,
  (r) =>
    `${pick(r, COMPONENTS_ZH)} 值班每${pick(r, DAYS_ZH)}轮换,${pick(r, ENVS)} 故障先找 ${pick(r, PEOPLE)}。`,
];

/** One memory-like fact, Chinese or English (about 40% Chinese). */
export function memoryText(r: Rand): string {
  return r() < 0.4 ? pick(r, FACT_ZH)(r) : pick(r, FACT_EN)(r);
}

/** `n` distinct memory texts for a seed. */
export function memoryTexts(n: number, seed: number): string[] {
  const r = prng(seed);
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    const t = memoryText(r);
    if (!seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

const NOISE_USER: ((r: Rand, c: string) => string)[] = [
  (_r, c) => `可能是 ${c} 的网络问题吧`,
  () => `这破驱动又崩了`,
  () => `好的,谢谢`,
  (_r, c) => `帮我查一下 ${c} 的日志`,
  (_r, c) => `Maybe it's the firewall in front of ${c}, not sure.`,
  () => `ugh, this is so annoying`,
  (_r, c) => `can you take a look at ${c}?`,
  (r, c) =>
    `export ${c.replace(/\W+/g, '_').toUpperCase()}_TOKEN=ghp_${'Ab1Cd2Ef3G'.repeat(4)}${int(r, 10, 99)} 然后重启服务`,
  (r) =>
    `有问题打我电话 138${int(r, 10_000_000, 99_999_999)},或者发邮件 ${pick(r, ['wang.li', 'chen.wei', 'ops'])}@example.com`,
];
const NOISE_ASSISTANT: ((r: Rand, c: string) => string)[] = [
  (_r, c) => `好的,我来看看 ${c} 的日志。`,
  (_r, c) => `You could try increasing the timeout on ${c}. It might help.`,
  (_r, c) => `Let me check the recent deploys of ${c} first.`,
  () => `Here is a summary of what I found so far.`,
];

/** A mixed zh/en engineering conversation of `turns` messages (user and assistant alternate). */
export function conversation(r: Rand, turns: number, t0 = Date.UTC(2026, 4, 15, 8, 0, 0)): RawMessage[] {
  const messages: RawMessage[] = [];
  for (let i = 0; i < turns; i++) {
    const user = i % 2 === 0;
    const c = r() < 0.5 ? pick(r, COMPONENTS) : pick(r, COMPONENTS_ZH);
    const lines = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
      if (r() < 0.45) return memoryText(r);
      return user ? pick(r, NOISE_USER)(r, c) : pick(r, NOISE_ASSISTANT)(r, c);
    });
    if (user && r() < 0.08) lines.push(`请记录:部署 ${c} 前先跑 ${pick(r, TOOLS)} test`);
    messages.push({
      role: user ? 'user' : 'assistant',
      content: lines.join(user ? ' ' : ' '),
      id: `m${i}`,
      timestamp: t0 + i * 45_000,
    });
  }
  return messages;
}

/** A session for mnemo/ingest/session. */
export function session(r: Rand, turns: number, projectId: string, index: number): SessionInput {
  return {
    project_id: projectId,
    source_type: 'chat',
    messages: conversation(r, turns, Date.UTC(2026, 4, 15, 8, 0, 0) + index * 3_600_000),
    session_id: `bench-${index}`,
  };
}

/** Recall questions as people and agents ask them. */
export const QUERIES = [
  'what is the timeout of the payment gateway?',
  'how do we deploy the order api to staging?',
  'which editor does Alice prefer?',
  'when is the staging database reset?',
  'what was the root cause of the dropped connections?',
  'which package manager should I use in this repo?',
  'what is the retry limit for the kafka consumer?',
  'who is on call for prod incidents?',
  'why does the auth spec test fail at midnight?',
  'which version of protobuf is pinned?',
  'what port does the mqtt broker listen on?',
  'should I run lint before pushing?',
  '支付网关的超时时间是多少?',
  'Redis 缓存的重试次数设成多少?',
  '老王习惯用什么编辑器?',
  '预发布数据库什么时候重置?',
  '端口 502 的 RST 包是什么原因?',
  'PLC 网关站号应该设成多少?',
  '推送代码前要跑什么命令?',
  'prod 故障先找谁?',
];

/**
 * A VS Code "Export Chat…" document: an array of `sessions` chat sessions with `messagesPerSession`
 * messages each (one request = a prompt and its answer), for Import Chat.
 */
export function chatExport(seed: number, sessions: number, messagesPerSession: number): unknown[] {
  const r = prng(seed);
  const out: unknown[] = [];
  for (let s = 0; s < sessions; s++) {
    const msgs = conversation(r, messagesPerSession, Date.UTC(2026, 4, 15, 8, 0, 0) + s * 3_600_000);
    const requests = [];
    for (let i = 0; i + 1 < msgs.length; i += 2) {
      requests.push({
        requestId: `request_${s}_${i / 2}`,
        timestamp: msgs[i]!.timestamp,
        message: { text: msgs[i]!.content, parts: [] },
        response: [{ kind: 'markdownContent', content: { value: msgs[i + 1]!.content } }],
      });
    }
    out.push({
      requesterUsername: 'bench',
      responderUsername: 'GitHub Copilot',
      sessionId: `bench-import-${s}`,
      requests,
    });
  }
  return out;
}
