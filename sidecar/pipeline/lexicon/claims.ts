/**
 * Unverified hard claims: a necessity about a compatibility subject, with no evidence and no reference
 * ("PLC-3000 必须用 Windows Server 2012 驱动"), waits for review (docs/design.md, Score and the review
 * gate: memory pollution).
 */
import { alt, words } from './build';

/** Necessity: "必须", "只能", "must", "only works", "requires". */
export const NECESSITY = alt(
  ['必须', '只能', '一定要', '只有', words(['must', 'only works?', 'has to', 'have to', 'requires?'])],
  'i',
);

/** What compatibility claims are about: drivers, versions, firmware, operating systems. */
export const COMPAT_SUBJECT = alt(
  [
    '驱动',
    '版本',
    '兼容',
    '系统',
    '固件',
    '补丁',
    words([
      'driver',
      'version',
      String.raw`compatib\w*`,
      'firmware',
      'os',
      'windows',
      'linux',
      'kernel',
      'patch',
    ]),
    'windows',
    'linux',
  ],
  'i',
);

/** Evidence that the claim was checked: "实测", "官方文档", "confirmed", "according to". */
export const EVIDENCE = alt(
  [
    '确认',
    '验证',
    '实测',
    '测试通过',
    '证实',
    '查明',
    '官方',
    '手册',
    '文档',
    words(['confirmed', 'verified', 'tested', 'measured', 'documented', 'according to', 'per the']),
  ],
  'i',
);
