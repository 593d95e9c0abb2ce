package setup

// TotalSteps is the number of the wizard's numbered steps (docs/WIZARD.md):
// known before the first answer, whatever the answers turn out to be, so a
// "step n/total" counter never grows. A step asked only for some answers
// (the related task keys, the lead model, the executor's model) carries its
// parent's number and a letter; the executor's steps keep their numbers on
// runs that skip them.
const TotalSteps = 13

var stepNumbers = map[StepID]string{
	StepTaskKey: "1", StepTaskGroup: "2", StepTaskType: "3",
	StepRelatedTasks: "4", StepRelatedInput: "4a", StepDirective: "5",
	StepWorkers: "6", StepRoleModels: "7", StepRoleCount: "8",
	StepLeadProvider: "9", StepLeadModel: "9a", StepExecutor: "10",
	StepExecutorModel: "10a", StepReportLanguage: "11", StepSaveDefaults: "12",
	StepConfirm: "13",
}

// StepNumber is step's number as the wizard shows it: "1" to "13", "4a",
// "9a", "10a".
func StepNumber(id StepID) string { return stepNumbers[id] }
