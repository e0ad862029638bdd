/**
 * Captured agent sessions (docs/design.md, Capture from agents): the person mostly gives the agent work —
 * "Add a --dry-run flag to the deploy script", "把 retry.ts 改成用公共的连接池" — a request for one change,
 * not a fact that holds later. Such a sentence is no memory unless it also says something that lasts: a
 * value, a reason, a rule for every time.
 */

/** An instruction addressed to the agent, at the start of a sentence: "Add …", "Can you fix …", "把…改成", "帮我…". */
export const AGENT_TASK_HEAD =
  /^(?:(?:please|pls|can you|could you|would you|now|then|also|next|ok(?:ay)?|and)[\s,]+)*(?:add|fix|refactor|update|upgrade|rename|remove|delete|move|rewrite|implement|create|write|make|change|convert|replace|clean up|look (?:at|into)|check|run|try|investigate|debug|migrate|bump|split|extract|document|improve|optimi[sz]e|port|wire|hook up)\b|^(?:请|麻烦|帮我|帮忙|你|再|先|然后|顺便)*(?:把|给|修一下|修复|改一下|重构|升级|删掉|删除|加一个|加上|添加|实现|写一个|看一下|看看|查一下|跑一下|优化|迁移|整理)/i;

/**
 * What makes such a request also a lasting fact: a rule for every time ("always", "from now on", "以后",
 * "统一"), a reason ("because", "so that", "因为"), or a preference against something ("instead of",
 * "never", "不要"). Numbers are checked by the stage itself (a value is a fact).
 */
export const LASTING_MARK =
  /\b(?:always|never|from now on|every time|whenever|by default|in (?:this|the) (?:repo|repository|project)|instead of|rather than|because|since|so that|to keep|must|should always|do not|don't)\b|以后|今后|统一|一律|所有|每次|默认|不要|不能|必须|因为|以免|避免|为了|而不是/i;
