/**
 * What the later months of each conversation are about (hand-written; eval/grow.ts turns them into more
 * sessions). A world names the neighbours of what the questions ask about: other services of the same
 * system, other people in the speakers' lives. The grower gives each of them a history of facts that comes
 * and goes over the months (a port that moves twice, a friend who moves city, a favourite dish that
 * changes), so the answers of the hand-written questions sit among near-miss facts in the same words, and
 * a few of those histories get questions of their own.
 *
 * `things` are `name: attributes`, `people` are `name: attributes` (see AttrKind in growth.ts), `topics`
 * the hand-written conversation's own systems, for the small talk only. An
 * attribute is listed only where no hand-written question asks about it, so that no generated fact
 * changes a hand-written answer. `kind` picks the small talk: engineering, everyday life, or both.
 */
export interface World {
  kind: 'eng' | 'life' | 'mixed';
  things: string[];
  people: string[];
  /**
   * What the hand-written sessions talk about, named the way the questions name it: the small talk comes
   * back to these (a dashboard, a review, a flaky test) without ever giving an answer.
   */
  topics: string[];
  /** The same for the personal side (the pet, the trip, the new car), named without the answer. */
  life: string[];
}

export const WORLDS: Record<string, World> = {
  'en-01-payments-sre': {
    kind: 'eng',
    things: ['fraud-check service: port replicas version', 'ledger database: retention version', 'notifications service: owner port timeout', 'payments gateway: replicas version limit', 'refunds API: timeout port limit owner', 'settlement batch: schedule retention'],
    people: ['Jonas: pet city food', 'Ines: price event drink', 'Priya: hobby event', 'Tom\'s brother Dele: city'],
    topics: ['payments gateway', 'reports endpoint', 'billing-worker service', 'staging Postgres', 'Argo Rollouts setup', 'connection pool', 'on-call rotation'],
    life: ['the cat', 'the standing desk', 'the Lisbon trip', 'the coffee situation', 'the office café'],
  },
  'en-02-home-assistant': {
    kind: 'life',
    things: [],
    people: ['Sam: hobby drink event', 'Alina: city pet food', 'Jordan\'s neighbor Walt: pet price', 'Sam\'s mother Ruth: city event', 'Jordan\'s friend Priyanka: food price hobby', 'Sam\'s brother Eli: pet city price', 'Jordan\'s coworker Nadia: food drink event'],
    topics: [],
    life: ['the dog', 'the vet bills', 'the cargo bike', 'the rent', 'the move to the new city', 'Thanksgiving dinner', 'the peanut allergy thing'],
  },
  'en-03-mobile-release': {
    kind: 'mixed',
    things: ['staging backend: port timeout version', 'crash reporter: version owner', 'feature-flag service: port timeout', 'analytics pipeline: schedule retention', 'Android build: version schedule', 'image CDN: timeout limit'],
    people: ['Kenji: hobby city food', 'Farah: pet event price', 'Anya: hobby event'],
    topics: ['release 5.1', 'push notification service', 'login flow', 'device farm', 'React Native upgrade', 'iOS build', 'regression suite'],
    life: ['the half marathon', 'the hiking vacation', 'my daughter\'s birthday', 'test builds', 'the running club'],
  },
  'en-04-book-club-friends': {
    kind: 'life',
    things: [],
    people: ['Caroline\'s sister Beth: city pet food', 'Melanie\'s husband Greg: hobby price event', 'Ruth from the book club: drink event', 'Priya from pottery: pet price hobby', 'Melanie\'s neighbor Joe: city food'],
    topics: [],
    life: ['the puppy', 'the twins', 'the new job', 'the pottery studio', 'the lake house', 'the book club pick', 'the new car'],
  },
  'en-05-data-pipeline': {
    kind: 'mixed',
    things: ['customers DAG: schedule retention', 'returns DAG: schedule owner', 'Kafka ingest: port replicas retention', 'dbt models: version schedule', 'metrics API: port timeout limit', 'Spark history server: port retention'],
    people: ['Marcus: pet food event', 'Sofia\'s fiancé Luca: hobby city', 'Tamsin: price drink', 'Sofia\'s sister Chiara: pet city food'],
    topics: ['nightly_orders DAG', 'orders table', 'dedup step', 'Airflow scheduler', 'warehouse side', 'S3 raw bucket', 'Spark executor config'],
    life: ['the wedding', 'the wedding venue', 'SQL style', 'the honeymoon'],
  },
  'en-06-gaming-studio': {
    kind: 'mixed',
    things: ['lobby servers: port replicas', 'chat service: timeout port owner', 'leaderboard API: limit timeout version', 'patch CDN: retention limit', 'anti-cheat service: version owner', 'telemetry collector: schedule port'],
    people: ['Lucia: pet city food', 'Dana\'s partner Noor: hobby price', 'Kai: drink event'],
    topics: ['matchmaking servers', 'login queue', 'Redis for sessions', 'live ops dashboard', 'Singapore region', 'patch pipeline', 'mascot plushie order'],
    life: ['my son', 'patch days', 'the game of the year', 'the plushies'],
  },
  'en-07-kubernetes-migration': {
    kind: 'eng',
    things: ['worker pods: replicas timeout', 'metrics stack: retention version', 'batch CronJob: schedule timeout', 'cert-manager: version owner', 'internal registry: port retention limit', 'search service: replicas port timeout'],
    people: ['Omar\'s brother Yusuf: city food event', 'Omar\'s colleague Hana: pet hobby price', 'Omar\'s neighbour Rania: drink food city'],
    topics: ['api Helm chart', 'new cluster', 'ingress controller', 'api pods', 'runbooks repo', 'bare-metal cluster', 'kubectl docs'],
    life: ['the parrot', 'my mother\'s birthday trip', 'the Marrakech trip', 'the doorbell sound'],
  },
  'en-08-roommates': {
    kind: 'life',
    things: [],
    people: ['Iris\'s sister Mae: city pet food', 'the landlord Mr Ortega: event price', 'Nate\'s bandmate Theo: hobby drink city', 'the downstairs neighbor Carla: pet food', 'Iris\'s coworker Dev: price event hobby'],
    topics: [],
    life: ['the internet plan', 'the wifi', 'the rent', 'the new guitar', 'the band', 'the bike shop job', 'the ramen place', 'bouldering', 'the houseplants', 'the parents visit'],
  },
  'en-09-security-audit': {
    kind: 'eng',
    things: ['admin portal: timeout port', 'audit log pipeline: retention schedule', 'SSO proxy: version timeout owner', 'VPN gateway: port version', 'secrets scanner: schedule version', 'API gateway: limit timeout'],
    people: ['Lukas\'s partner Ana: pet hobby city', 'Marta from compliance: food price event', 'Priya\'s sister Devi: drink city'],
    topics: ['auth service', 'password reset endpoint', 'load balancers', 'access tokens', 'external pentest', 'secrets migration', 'postmortem template'],
    life: ['the dog', 'the knee surgery', 'the 3D printer', 'postmortems'],
  },
  'en-10-fitness-coach': {
    kind: 'life',
    things: [],
    people: ['Ben\'s brother Carl: city food event', 'Ben\'s running buddy Felix: pet price hobby', 'Ben\'s wife Jess: drink hobby event', 'Ben\'s physio Dr Amin: price city', 'Ben\'s sister Tara: pet city food', 'Ben\'s neighbour Gus: hobby price drink'],
    topics: [],
    life: ['my weight', 'the knee', 'the gym membership', 'the 10k', 'breakfast', 'eggs', 'training times', 'the diet'],
  },
  'en-11-iot-firmware': {
    kind: 'mixed',
    things: ['weather station: schedule version', 'pump controller: timeout port', 'MQTT broker: port retention limit', 'greenhouse sensors: schedule version owner', 'OTA server: port retention timeout'],
    people: ['Greta\'s husband Henrik: hobby food city', 'Sam\'s daughter Juno: pet event', 'the vet Dr Okafor: price drink'],
    topics: ['soil sensors', 'LoRa gateway', 'battery firmware', 'east row sensors', 'moisture report', 'barn roof gateway', 'sensor LEDs'],
    life: ['the county fair', 'the goats', 'the transmission', 'the mechanic', 'the farm manager'],
  },
  'en-12-writing-assistant': {
    kind: 'life',
    things: [],
    people: ['Ada\'s editor Simone: city drink event', 'Ada\'s brother Felix: pet food hobby', 'Ada\'s writing group friend Imke: price hobby city', 'Ada\'s agent Roberta: food event', 'Ada\'s neighbour Otto: pet price drink', 'Ada\'s mother Vera: city food hobby'],
    topics: [],
    life: ['the novel', 'the book title', 'the cats', 'the new laptop', 'the residency', 'the draft deadline', 'the word count'],
  },
  'en-13-oncall-handover': {
    kind: 'eng',
    things: ['shipping API: timeout port replicas', 'warehouse scanner service: version owner', 'Kibana: version port', 'nightly reindex: schedule timeout', 'Redis cache: limit retention', 'invoice service: owner timeout port'],
    people: ['Lina\'s brother Tobi: city food', 'Kwame\'s running club friend Esi: pet price event', 'Lina\'s partner Jo: hobby drink'],
    topics: ['label printer API', 'Kafka consumers', 'Elasticsearch cluster', 'alerts channel', 'Grafana dashboards', 'handover notes', 'consumer lag alert'],
    life: ['the greyhound', 'the espresso machine', 'the marathon training', 'the long runs', 'Christmas presents'],
  },
  'en-14-travel-planner': {
    kind: 'life',
    things: [],
    people: ['Marisol\'s sister Pilar: city pet food', 'Diego\'s cousin Rafa: hobby event price', 'Marisol\'s neighbor Hattie: pet drink', 'Marisol\'s colleague June: food city event', 'Marisol\'s father Ernesto: hobby drink city', 'Diego\'s sister Lupe: pet price food'],
    topics: [],
    life: ['the Japan trip', 'the flights', 'the ryokan', 'the birthday party', 'night flights', 'the dog sitter', 'the budget', 'Osaka'],
  },
  'zh-01-ecommerce-backend': {
    kind: 'eng',
    things: ['用户服务: port timeout replicas', '优惠券服务: owner port timeout', '搜索服务: version replicas', '消息队列: retention limit', '对账任务: schedule retention', '商品服务: port version limit'],
    people: ['刘洋: pet city food', '王芳的表妹小雨: city price', '组长老孙: drink event hobby'],
    topics: ['订单服务', '支付回调', '库存服务', '购物车', 'Redis 集群', '网关配置', '新集群'],
    life: ['猫的事', '人体工学椅', '春节出行', '国庆旅行', '代码评审'],
  },
  'zh-02-family-assistant': {
    kind: 'life',
    things: [],
    people: ['赵敏的妹妹赵静: city pet food', '赵敏的老公: hobby drink event', '乐乐的同学豆豆: hobby event', '赵敏的婆婆: city food price', '邻居李阿姨: pet price', '赵敏的同事小何: drink food price', '乐乐的钢琴老师: city pet hobby'],
    topics: [],
    life: ['装修', '新房子', '地板', '机器人编程课', '过敏的事', '兴趣班', '青岛的行程', '上小学的事', '家里的狗'],
  },
  'zh-03-plc-commissioning': {
    kind: 'eng',
    things: ['三号线温控表: schedule version', '空压机: port timeout', 'SCADA 服务器: port version owner', '一号线称重仪: timeout limit', '历史数据库: retention schedule', '冷却塔控制柜: version owner'],
    people: ['刘工的徒弟小钱: pet hobby event', '车间主任老马: food drink city', '小赵的爱人: city price'],
    topics: ['Modbus 通讯', '能耗表', '网关 GW-450', '二号线', 'PLC 固件', '工业交换机', '变频器'],
    life: ['婚礼', '蜜月', '报故障的流程'],
  },
  'zh-04-college-friends': {
    kind: 'life',
    things: [],
    people: ['室友阿珍: city pet food', '班长大刘: hobby price event', '周婷的男朋友: city drink', '李娜的表姐: pet food hobby', '辅导员王老师: event price'],
    topics: [],
    life: ['跳槽的事', '猫咪绝育', '新车', '妈妈的手术', '新疆自驾', '京都的计划', '网球课', '加班'],
  },
  'zh-05-frontend-assistant': {
    kind: 'eng',
    things: ['管理后台: port version', 'mock 服务: port timeout', '埋点 SDK: version owner limit', '组件库文档站: schedule port', 'BFF 层: timeout replicas limit', '图片服务: timeout retention'],
    people: ['吴昊的同事阿凯: pet city food', '吴昊的女朋友: hobby drink event', '产品经理小林: price event', '吴昊的表哥: city pet food'],
    topics: ['首页首屏', '表格组件', '构建机', '发版流程', '后端接口', '网关地址配置', 'Vite 配置'],
    life: ['机械键盘', '成都的旅行', '减肥', '代码风格'],
  },
  'zh-06-ops-oncall': {
    kind: 'eng',
    things: ['Redis 集群: limit port version', '日志平台: retention version', 'Nginx 网关: timeout replicas', '监控告警: schedule owner', '对象存储: retention limit', 'Jenkins: port version owner'],
    people: ['孙悦的老公: city food hobby', '张伟的女儿: event hobby', '同事老周: pet drink price'],
    topics: ['MySQL 主从', '全量备份', 'etcd 集群', 'K8s 集群升级', '值班交接', 'API Server', '告警阈值'],
    life: ['家里的狗', '按摩椅', '春节回家', '值班交接'],
  },
  'zh-07-life-assistant': {
    kind: 'life',
    things: [],
    people: ['钱多多的闺蜜小美: city pet food', '钱多多的弟弟: hobby price event', '钱多多的男朋友阿杰: drink hobby city', '钱多多的同事莉莉: food price event', '钱多多的妈妈: hobby food city', '钱多多的室友阿兰: pet price drink'],
    topics: [],
    life: ['买房的事', '房贷', '健身卡', '定投', '减肥目标', '健身餐', '爸妈来杭州', '健身房'],
  },
  'zh-08-data-platform': {
    kind: 'eng',
    things: ['Hive 数仓: version retention', 'Kafka 集群: retention port', 'Spark 离线任务: schedule timeout', 'Doris: version replicas port', '调度平台: owner schedule', '指标服务: timeout limit port'],
    people: ['林晓的老婆: hobby food', '黄浩的室友: pet city price', '组里的实习生小周: drink event city'],
    topics: ['ClickHouse 集群', 'Flink 任务', '明细表', 'Kafka 扩容', 'SQL 评审', '数据延迟', 'checkpoint 配置'],
    life: ['换车的事', '孩子的名字', '预产期', '崇礼滑雪', '新爱好'],
  },
};
