// TRL's DataCollatorForPreference: a batch of preference pairs (data.preference's prompt_ids,
// chosen_ids, rejected_ids) as one batch of 2B rows, the B prompt+chosen sequences then the B
// prompt+rejected ones, so that one forward pass scores both halves. input_ids are padded on
// the right with pad_token_id, attention_mask marks the real tokens and completion_mask the
// completion's; each sequence is first cut to max_length (keep_start: its first tokens,
// keep_end: its last). ref_chosen_logps / ref_rejected_logps of the examples, when they have
// them, are stacked into (B) tensors.
#pragma once
#include <cstdint>

#include "runtime/data/collator.h"

namespace runner::data {

struct PreferenceCollateOptions {
  int64_t pad_token_id = 0;
  int64_t max_length = 0;  // 0: no cut
  bool keep_end = false;
  int64_t pad_to_multiple_of = 0;
};

// DataError naming the missing field when an example lacks prompt_ids, chosen_ids or rejected_ids.
Collator preference_collate(PreferenceCollateOptions options = {});

// TRL RewardTrainer's DataCollatorForPreference: data.reward_pairs' chosen_ids then rejected_ids
// as 2B rows of input_ids (right-padded with pad_token_id) and attention_mask, no cut; the
// examples' margins, when they have them, as a (B) fp32 margin. (max_length and keep_end are
// not read.)
Collator reward_collate(PreferenceCollateOptions options = {});

}  // namespace runner::data
